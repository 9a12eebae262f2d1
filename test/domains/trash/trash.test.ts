// The trash: deleting a page, space, project or reference keeps it with everything the delete took along; lists
// and search stop showing it; a restore brings all of it back (a page at its place among its siblings, or last at
// the top level when its parent is gone); an agent's delete is approved first, then trashed; deleting for good and
// the daily purge end it. Every delete, restore and purge is audited.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { trashPurgeTask } from '../../../domains/trash/schema.ts';
import { hub } from '../../../modules.ts';
import { enqueue } from '../../../worker/enqueue.ts';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { owned } from '../../helpers/entities.ts';

const ta = await testApp(t, { worker: true });

async function get(url: string) {
  const response = await ta.asOwner({ method: 'GET', url });
  return response.json();
}

async function titlesIn(space: string): Promise<string[]> {
  const pages = await get(`/api/spaces/${space}/pages`);
  return pages.items.map(
    (page: { title: string; depth: number }) => `${'  '.repeat(page.depth)}${page.title}`,
  );
}

async function trashItem(ta: TestApp, entityId: string) {
  const list = await ta.asOwner({ method: 'GET', url: '/api/trash?limit=100' });
  return list.json().items.find((item: { entity_id: string }) => item.entity_id === entityId);
}

t.test('a page goes to the trash with its subtree and history, and comes back in its place', async (t) => {
  const space = await createSpace(ta);
  const first = await owned(ta, '/api/pages', { space_id: space.id, title: 'First' });
  const parent = await owned(ta, '/api/pages', {
    space_id: space.id,
    title: 'Parent',
    body: 'zebrafish notes',
  });
  await owned(ta, '/api/pages', { space_id: space.id, title: 'Last' });
  const child = await owned(ta, '/api/pages', { space_id: space.id, parent_id: parent.id, title: 'Child' });
  await owned(ta, '/api/pages', { space_id: space.id, parent_id: child.id, title: 'Grandchild' });
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${parent.id}`,
    payload: { body: 'zebrafish notes, v2' },
  });
  const before = await titlesIn(space.id);
  t.same(before, ['First', 'Parent', '  Child', '    Grandchild', 'Last']);

  const deleted = await ta.asOwner({ method: 'DELETE', url: `/api/pages/${parent.id}` });
  t.equal(deleted.statusCode, 204);
  t.same(await titlesIn(space.id), ['First', 'Last'], 'the subtree is out of the lists');
  const search = await get(`/api/search?q=zebrafish&space_id=${space.id}`);
  t.equal(search.total, 0, 'and out of search');
  const item = await trashItem(ta, parent.id);
  t.match(item, { kind: 'page', title: 'Parent', space_id: space.id, deleted_by: { kind: 'owner' } });
  t.ok(item.row_count >= 3 + 4, 'three pages and their four versions are kept');
  t.match(item.contents, { pages: 2, page_versions: 4 }, 'what it holds: two subpages, four versions');

  const restored = await ta.asOwner({ method: 'POST', url: `/api/trash/${item.id}/restore` });
  t.equal(restored.statusCode, 200);
  t.same(await titlesIn(space.id), before, 'the whole subtree is back, in its place');
  t.equal((await get(`/api/search?q=zebrafish&space_id=${space.id}`)).total, 1);
  const versions = await get(`/api/pages/${parent.id}/versions`);
  t.equal(versions.total, 2, 'with its history');
  t.notOk(await trashItem(ta, parent.id), 'and out of the trash');
  const first2 = await get(`/api/pages/${first.id}`);
  t.equal(first2.position, 0);

  const audit = await ta.sql`
    select action, actor from audit_log where entity_id = ${parent.id} order by created_at`;
  t.same(
    audit.map((row) => row.action),
    ['trash', 'restore'],
    'the delete and the restore are audited',
  );
});

t.test('a page whose parent is gone comes back last at the top level', async (t) => {
  const space = await createSpace(ta);
  const parent = await owned(ta, '/api/pages', { space_id: space.id, title: 'Parent' });
  const child = await owned(ta, '/api/pages', { space_id: space.id, parent_id: parent.id, title: 'Child' });
  await owned(ta, '/api/pages', { space_id: space.id, title: 'Other' });
  await ta.asOwner({ method: 'DELETE', url: `/api/pages/${child.id}` });
  await ta.asOwner({ method: 'DELETE', url: `/api/pages/${parent.id}` });
  const item = await trashItem(ta, child.id);
  t.equal((await ta.asOwner({ method: 'POST', url: `/api/trash/${item.id}/restore` })).statusCode, 200);
  t.same(await titlesIn(space.id), ['Other', 'Child']);
});

t.test('a space with everything in it goes and comes back; its content waits for it', async (t) => {
  const space = await createSpace(ta, 'Workshop');
  const page = await owned(ta, '/api/pages', { space_id: space.id, title: 'Bench', body: 'vice' });
  const project = await owned(ta, '/api/projects', { space_id: space.id, name: 'Shelves' });
  const task = await owned(ta, '/api/tasks', { project_id: project.id, title: 'Buy wood' });
  const ref = await owned(ta, '/api/refs', {
    space_id: space.id,
    source: 'web',
    external_id: 'workshop-1',
    title: 'Joinery',
  });
  await ta.asOwner({ method: 'POST', url: `/api/projects/${project.id}/refs`, payload: { ref_id: ref.id } });
  const answers = async () => ({
    space: await get(`/api/spaces/${space.id}`),
    pages: await get(`/api/spaces/${space.id}/pages`),
    page: await get(`/api/pages/${page.id}`),
    task: await get(`/api/tasks/${task.id}`),
    ref: await get(`/api/refs/${ref.id}`),
    projectRefs: await get(`/api/projects/${project.id}/refs`),
  });
  const before = await answers();

  // A project deleted first waits in the trash for its space.
  await ta.asOwner({ method: 'DELETE', url: `/api/projects/${project.id}` });
  const deleted = await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${space.id}?cascade=true` });
  t.equal(deleted.statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/pages/${page.id}` })).statusCode, 404);
  const projectItem = await trashItem(ta, project.id);
  const gone = await ta.asOwner({ method: 'POST', url: `/api/trash/${projectItem.id}/restore` });
  t.equal(gone.statusCode, 409);
  t.equal(gone.json().code, 'TRASH_SPACE_GONE');

  const spaceItem = await trashItem(ta, space.id);
  t.match(spaceItem, { kind: 'space', title: 'Workshop' });
  t.equal((await ta.asOwner({ method: 'POST', url: `/api/trash/${spaceItem.id}/restore` })).statusCode, 200);
  t.equal(
    (await ta.asOwner({ method: 'POST', url: `/api/trash/${projectItem.id}/restore` })).statusCode,
    200,
  );
  t.same(await answers(), before, 'every answer is as before');

  const missing = await ta.asOwner({ method: 'POST', url: `/api/trash/${spaceItem.id}/restore` });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'TRASH_ITEM_NOT_FOUND');
});

t.test("an agent's delete is approved, then trashed; deleting for good is audited", async (t) => {
  const space = await createSpace(ta);
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: space.id });
  const ref = await owned(ta, '/api/refs', { space_id: space.id, source: 'web', external_id: 'agent-1' });
  const proposal = await ta.asAgent(suggester.token, { method: 'DELETE', url: `/api/refs/${ref.id}` });
  t.equal(proposal.statusCode, 202);
  t.notOk(await trashItem(ta, ref.id), 'a proposal trashes nothing');
  const changeId = proposal.json().pending_change_id;
  t.equal(
    (await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${changeId}/approve` })).statusCode,
    200,
  );
  const item = await trashItem(ta, ref.id);
  t.match(item, {
    kind: 'ref',
    deleted_by: { kind: 'approval', agent_id: suggester.id, pending_change_id: changeId },
  });

  const agentList = await ta.asAgent(suggester.token, { method: 'GET', url: '/api/trash' });
  t.equal(agentList.statusCode, 403, 'the trash is the owner’s');

  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/trash/${item.id}` })).statusCode, 204);
  t.notOk(await trashItem(ta, ref.id));
  const actions = await ta.sql`select action from audit_log where entity_id = ${ref.id} order by created_at`;
  t.same(
    actions.map((row) => row.action),
    ['approve', 'purge'],
    'the approval records the delete (the owner’s own deletes are audited as trash)',
  );
});

t.test('the daily purge removes what is past the retention', async (t) => {
  t.ok(hub.cron({ sql: ta.sql, config: ta.config }).some((item) => item.task.name === 'trash.purge'));
  const space = await createSpace(ta);
  const old = await owned(ta, '/api/pages', { space_id: space.id, title: 'Old' });
  const recent = await owned(ta, '/api/pages', { space_id: space.id, title: 'Recent' });
  await ta.asOwner({ method: 'DELETE', url: `/api/pages/${old.id}` });
  await ta.asOwner({ method: 'DELETE', url: `/api/pages/${recent.id}` });
  await ta.sql`update trash set deleted_at = now() - interval '31 days' where entity_id = ${old.id}`;

  await enqueue(ta.sql, trashPurgeTask, {});
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && (await trashItem(ta, old.id))) await sleep(200);
  t.notOk(await trashItem(ta, old.id), 'the old item is gone');
  t.ok(await trashItem(ta, recent.id), 'the recent one stays');
  const [purge] = await ta.sql`select actor from audit_log where action = 'purge' and entity_id = ${old.id}`;
  t.equal(purge.actor, 'system');
});
