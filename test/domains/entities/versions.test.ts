// No silent overwrite: every entity and setting answers a strong ETag; an edit sent with an older one is 412 with
// the current representation; two edits made against one version cannot both land; an agent's proposal that the
// owner overtook is refused on approval with what changed, unless forced.
import t from 'tap';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';
import { type Json, owned } from '../../helpers/entities.ts';

// One hub for the whole file: every test makes its own rows.
const ta = await testApp(t);

t.test('a page: ETag, If-Match, 412 with the current page, no If-Match still writes', async (t) => {
  const page = await owned(ta, '/api/pages', { title: 'Plan', body: 'first' });

  const read = await ta.asOwner({ method: 'GET', url: `/api/pages/${page.id}` });
  t.equal(read.headers.etag, '"1"', 'a new page is version 1');

  const edited = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${page.id}`,
    headers: { 'if-match': '"1"' },
    payload: { body: 'second' },
  });
  t.equal(edited.statusCode, 200);
  t.equal(edited.headers.etag, '"2"', 'the answer carries the new version');

  const stale = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${page.id}`,
    headers: { 'if-match': '"1"' },
    payload: { body: 'from an old tab' },
  });
  t.equal(stale.statusCode, 412);
  t.equal(stale.headers.etag, '"2"');
  t.match(stale.json(), {
    code: 'VERSION_CHANGED',
    current_version: 2,
    current: { id: page.id, title: 'Plan', body: 'second' },
  });

  const weak = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${page.id}`,
    headers: { 'if-match': 'W/"2"' },
    payload: { body: 'weak' },
  });
  t.equal(weak.statusCode, 412, 'a weak tag never matches (strong comparison)');

  const any = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${page.id}`,
    headers: { 'if-match': '*' },
    payload: { body: 'any version' },
  });
  t.equal(any.statusCode, 200, '* matches whatever is current');

  const blind = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${page.id}`,
    payload: { body: 'script' },
  });
  t.equal(blind.statusCode, 200, 'without If-Match the edit applies');
  t.equal(blind.headers.etag, '"4"');

  // One edit that also moves the page raises the version once.
  const other = await owned(ta, '/api/pages', { title: 'Other' });
  const moved = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${page.id}`,
    headers: { 'if-match': '"4"' },
    payload: { title: 'Moved', parent_id: other.id },
  });
  t.equal(moved.statusCode, 200);
  t.equal(moved.headers.etag, '"5"');
});

t.test('two concurrent edits with the same If-Match: one 200, one 412, nothing lost', async (t) => {
  for (let round = 0; round < 5; round++) {
    const page = await owned(ta, '/api/pages', { title: `Race ${round}`, body: 'start' });
    const edit = (body: string) =>
      ta.asOwner({
        method: 'PATCH',
        url: `/api/pages/${page.id}`,
        headers: { 'if-match': '"1"' },
        payload: { body },
      });
    const answers = await Promise.all([edit('tab A'), edit('tab B')]);
    const codes = answers.map((answer) => answer.statusCode).sort();
    t.same(codes, [200, 412], `round ${round}: one edit lands, the other is refused`);
    const won = answers.find((answer) => answer.statusCode === 200)?.json().body;
    const lost = answers.find((answer) => answer.statusCode === 412)?.json();
    t.equal(lost.current.body, won, 'the refused tab is shown the text that won');
    const [row] = await ta.sql`select body, version from pages where id = ${page.id}`;
    t.same(row, { body: won, version: 2 });
  }
});

t.test('tasks, projects, refs and resources answer ETags and refuse stale edits', async (t) => {
  const project = await owned(ta, '/api/projects', { name: 'Garden' });
  const task = await owned(ta, '/api/tasks', { project_id: project.id, title: 'Dig' });
  const ref = await owned(ta, '/api/refs', { source: 'web', external_id: 'x1', title: 'A link' });
  const resource = await owned(ta, '/api/resources', { name: 'nas' });
  const cases: [string, string, Json][] = [
    ['/api/projects', project.id, { name: 'Garden 2' }],
    ['/api/tasks', task.id, { title: 'Dig deeper' }],
    ['/api/refs', ref.id, { title: 'A better link' }],
    ['/api/resources', resource.id, { notes: 'in the cupboard' }],
  ];
  for (const [path, id, patch] of cases) {
    const read = await ta.asOwner({ method: 'GET', url: `${path}/${id}` });
    const etag = read.headers.etag as string;
    t.match(etag, /^"\d+"$/, `${path}: a strong ETag`);
    const fresh = await ta.asOwner({
      method: 'PATCH',
      url: `${path}/${id}`,
      headers: { 'if-match': etag },
      payload: patch,
    });
    t.equal(fresh.statusCode, 200, `${path}: an edit against the current version applies`);
    t.not(fresh.headers.etag, etag, `${path}: and raises the version`);
    const stale = await ta.asOwner({
      method: 'PATCH',
      url: `${path}/${id}`,
      headers: { 'if-match': etag },
      payload: patch,
    });
    t.equal(stale.statusCode, 412, `${path}: an edit against the old version is refused`);
    t.match(stale.json(), { code: 'VERSION_CHANGED', current: { id } });
  }
});

t.test('settings: ETag on read, 412 on a stale PUT with the current value', async (t) => {
  const first = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/my.key',
    payload: { value: { a: 1 } },
  });
  t.equal(first.statusCode, 200);
  const etag = first.headers.etag as string;
  const read = await ta.asOwner({ method: 'GET', url: '/api/settings/my.key' });
  t.equal(read.headers.etag, etag);

  const next = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/my.key',
    headers: { 'if-match': etag },
    payload: { value: { a: 2 } },
  });
  t.equal(next.statusCode, 200);
  const stale = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/my.key',
    headers: { 'if-match': etag },
    payload: { value: { a: 3 } },
  });
  t.equal(stale.statusCode, 412);
  t.match(stale.json(), { code: 'VERSION_CHANGED', current: { key: 'my.key', value: { a: 2 } } });
  t.equal(stale.headers.etag, next.headers.etag);
  const [row] = await ta.sql`select value from app_settings where key = 'my.key'`;
  t.same(row.value, { a: 2 }, 'the newer value stays');

  const gone = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/never.set',
    headers: { 'if-match': '"1"' },
    payload: { value: 1 },
  });
  t.equal(gone.statusCode, 412, 'a condition on a setting that does not exist fails');
});

t.test(
  'a proposal the owner overtook: 409 PENDING_CHANGE_STALE with both versions and a diff; force applies',
  async (t) => {
    const home = await createSpace(ta);
    const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
    const page = await owned(ta, '/api/pages', {
      space_id: home.id,
      title: 'Notes',
      body: 'line one\nline two\n',
    });

    const proposed = await ta.asAgent(suggester.token, {
      method: 'PATCH',
      url: `/api/pages/${page.id}`,
      payload: { body: 'line one\nagent line\n' },
    });
    t.equal(proposed.statusCode, 202);
    const changeId = proposed.json().pending_change_id;
    const change = await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${changeId}` });
    t.match(change.json(), { target_version: 1, target_before: { body: 'line one\nline two\n' } });

    const owner = await ta.asOwner({
      method: 'PATCH',
      url: `/api/pages/${page.id}`,
      payload: { body: 'line one\nowner line\n' },
    });
    t.equal(owner.statusCode, 200);

    const approval = await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${changeId}/approve` });
    t.equal(approval.statusCode, 409);
    const stale = approval.json();
    t.match(stale, {
      code: 'PENDING_CHANGE_STALE',
      proposed_against_version: 1,
      current_version: 2,
      changes: [
        {
          field: 'body',
          proposed_against: 'line one\nline two\n',
          current: 'line one\nowner line\n',
          proposed: 'line one\nagent line\n',
        },
      ],
      pending_change: { id: changeId, status: 'pending' },
    });
    t.match(stale.changes[0].diff, /-line two\n\+owner line/, 'a unified diff of what changed since');
    const [kept] = await ta.sql`select body from pages where id = ${page.id}`;
    t.equal(kept.body, 'line one\nowner line\n', "the owner's newer text stays");

    const forced = await ta.asOwner({
      method: 'POST',
      url: `/api/pending-changes/${changeId}/approve`,
      payload: { force: true },
    });
    t.equal(forced.statusCode, 200, 'the owner can approve it anyway');
    const [now] = await ta.sql`select body from pages where id = ${page.id}`;
    t.equal(now.body, 'line one\nagent line\n');
  },
);

t.test('a proposal whose target did not change applies; a stale delete is refused', async (t) => {
  const home = await createSpace(ta);
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const project = await owned(ta, '/api/projects', { space_id: home.id, name: 'Roof' });

  const rename = await ta.asAgent(suggester.token, {
    method: 'PATCH',
    url: `/api/projects/${project.id}`,
    payload: { name: 'Roof repair' },
  });
  const applied = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${rename.json().pending_change_id}/approve`,
  });
  t.equal(applied.statusCode, 200, 'nothing changed since: it applies');

  const removal = await ta.asAgent(suggester.token, { method: 'DELETE', url: `/api/projects/${project.id}` });
  await ta.asOwner({ method: 'PATCH', url: `/api/projects/${project.id}`, payload: { status: 'paused' } });
  const refused = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${removal.json().pending_change_id}/approve`,
  });
  t.equal(refused.statusCode, 409);
  t.match(refused.json(), { code: 'PENDING_CHANGE_STALE', proposed_against_version: 2, current_version: 3 });
  const [row] = await ta.sql`select count(*)::int as n from projects where id = ${project.id}`;
  t.equal(row.n, 1, 'the project the owner just changed is still there');

  const stalePropose = await ta.asAgent(suggester.token, {
    method: 'PATCH',
    url: `/api/projects/${project.id}`,
    headers: { 'if-match': '"1"' },
    payload: { name: 'Old view' },
  });
  t.equal(stalePropose.statusCode, 412, "an agent's proposal against an old version is refused at once");
});
