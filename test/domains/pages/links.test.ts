import t from 'tap';
import { linkedTitles, relinked } from '../../../domains/pages/links.ts';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';

interface PageBody {
  id: string;
  title: string;
  body: string;
}

async function createPage(ta: TestApp, payload: Record<string, unknown>): Promise<PageBody> {
  const response = await ta.asOwner({ method: 'POST', url: '/api/pages', payload });
  if (response.statusCode !== 201) throw new Error(`creating a page failed: ${response.body}`);
  return response.json();
}

async function backlinkTitles(ta: TestApp, id: string, token?: string): Promise<string[]> {
  const request = { method: 'GET' as const, url: `/api/pages/${id}/backlinks` };
  const response = token ? await ta.asAgent(token, request) : await ta.asOwner(request);
  if (response.statusCode !== 200)
    throw new Error(`backlinks failed: ${response.statusCode} ${response.body}`);
  return response.json().items.map((page: { title: string }) => page.title);
}

t.test('the titles a body links to, and a body relinked to a new title', async (t) => {
  t.same(
    linkedTitles(
      'See [[ZFS]], [[ Backups |the backups]] and [[ZFS]] again; [[]] and [[a\nb]] are not links.',
    ),
    ['ZFS', 'Backups'],
  );
  t.same(linkedTitles(`[[${'x'.repeat(501)}]]`), [], 'longer than any title');
  t.equal(
    relinked('[[zfs]] and [[ZFS|the pool]] but not [[ZFS pool]]', 'ZFS', 'Storage'),
    '[[Storage]] and [[Storage|the pool]] but not [[ZFS pool]]',
  );
});

t.test('backlinks follow every write of a page body, in its own space only', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta);
  const work = await createSpace(ta);
  const zfs = await createPage(ta, { space_id: home.id, title: 'ZFS' });
  const runbook = await createPage(ta, {
    space_id: home.id,
    title: 'Runbook',
    body: 'Check [[zfs|the pool]].',
  });
  await createPage(ta, { space_id: home.id, title: 'Notes', body: 'Nothing linked.' });
  await createPage(ta, { space_id: work.id, title: 'Elsewhere', body: 'Another [[ZFS]].' });
  t.same(await backlinkTitles(ta, zfs.id), ['Runbook'], 'a link from another space does not count');

  // A link to a page that does not exist yet works once it does.
  const later = await createPage(ta, { space_id: home.id, title: 'Later', body: '[[Backups]] and [[ZFS]]' });
  const backups = await createPage(ta, { space_id: home.id, title: 'Backups' });
  t.same(await backlinkTitles(ta, backups.id), ['Later']);
  t.same(await backlinkTitles(ta, zfs.id), ['Later', 'Runbook']);

  const edited = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${runbook.id}`,
    payload: { body: 'none' },
  });
  t.equal(edited.statusCode, 200);
  t.same(await backlinkTitles(ta, zfs.id), ['Later'], 'an edit removing the link removes the backlink');

  // A suggest-tier agent's edit applies when the owner approves it, through the same path.
  const suggester = await createAgent(ta, { tier: 'suggest' });
  const proposed = await ta.asAgent(suggester.token, {
    method: 'PATCH',
    url: `/api/pages/${runbook.id}`,
    payload: { body: 'Back to [[ZFS]].' },
  });
  t.equal(proposed.statusCode, 202);
  t.same(await backlinkTitles(ta, zfs.id), ['Later'], 'nothing changes before the approval');
  const approved = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${proposed.json().pending_change_id}/approve`,
  });
  t.equal(approved.statusCode, 200, approved.body);
  t.same(await backlinkTitles(ta, zfs.id), ['Later', 'Runbook']);

  const deleted = await ta.asOwner({ method: 'DELETE', url: `/api/pages/${later.id}` });
  t.equal(deleted.statusCode, 204);
  t.same(await backlinkTitles(ta, zfs.id), ['Runbook'], 'a deleted page links to nothing');
  const [trashed] = await ta.sql<{ id: string }[]>`select id from trash where entity_id = ${later.id}`;
  const restored = await ta.asOwner({ method: 'POST', url: `/api/trash/${trashed.id}/restore` });
  t.equal(restored.statusCode, 200);
  t.same(
    await backlinkTitles(ta, zfs.id),
    ['Later', 'Runbook'],
    'a page restored from the trash links again',
  );
});

t.test('agents read backlinks within their scope', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta);
  const work = await createSpace(ta);
  const homePage = await createPage(ta, { space_id: home.id, title: 'Home' });
  await createPage(ta, { space_id: home.id, title: 'Index', body: '[[Home]]' });
  const workPage = await createPage(ta, { space_id: work.id, title: 'Work' });
  const reader = await createAgent(ta, { tier: 'read', space_id: home.id });
  t.same(await backlinkTitles(ta, homePage.id, reader.token), ['Index']);
  const outside = await ta.asAgent(reader.token, {
    method: 'GET',
    url: `/api/pages/${workPage.id}/backlinks`,
  });
  t.equal(outside.statusCode, 404);
  t.equal(outside.json().code, 'PAGE_NOT_FOUND');
  const missing = await ta.asOwner({
    method: 'GET',
    url: '/api/pages/00000000-0000-4000-8000-000000000000/backlinks',
  });
  t.equal(missing.statusCode, 404);
});

t.test('renaming a page rewrites the links to it as edits of the linking pages', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta);
  const work = await createSpace(ta);
  const zfs = await createPage(ta, { space_id: home.id, title: 'ZFS' });
  const runbook = await createPage(ta, {
    space_id: home.id,
    title: 'Runbook',
    body: 'Check [[zfs|the pool]], then [[ZFS]]; [[ZFS pool]] is another page.',
  });
  const elsewhere = await createPage(ta, { space_id: work.id, title: 'Elsewhere', body: '[[ZFS]]' });

  const renamed = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${zfs.id}`,
    payload: { title: 'Storage' },
  });
  t.equal(renamed.statusCode, 200);
  const read = await ta.asOwner({ method: 'GET', url: `/api/pages/${runbook.id}` });
  t.equal(read.json().body, 'Check [[Storage|the pool]], then [[Storage]]; [[ZFS pool]] is another page.');
  t.same(await backlinkTitles(ta, zfs.id), ['Runbook']);
  const other = await ta.asOwner({ method: 'GET', url: `/api/pages/${elsewhere.id}` });
  t.equal(other.json().body, '[[ZFS]]', 'another space keeps its text');

  const history = await ta.asOwner({ method: 'GET', url: `/api/pages/${runbook.id}/versions` });
  t.equal(history.statusCode, 200, history.body);
  t.equal(history.json().total, 2, 'the rewrite is an edit of its own');
  const first = await ta.asOwner({ method: 'GET', url: `/api/pages/${runbook.id}/versions/1` });
  t.match(first.json().body, 'Check [[zfs|the pool]], then [[ZFS]]', 'history keeps the old text');

  // With another page still titled as the old one, the links may mean that page: they stay.
  const twin = await createPage(ta, { space_id: home.id, title: 'Twin', body: '[[Storage]]' });
  await createPage(ta, { space_id: home.id, title: 'storage' });
  const again = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${zfs.id}`,
    payload: { title: 'Pool' },
  });
  t.equal(again.statusCode, 200);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/pages/${twin.id}` })).json().body, '[[Storage]]');
});
