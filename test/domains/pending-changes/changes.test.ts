// Pending changes over REST: suggest-tier writes of every entity type and action are diverted, then applied on
// approval; failures reopen the change, rejection ends it, and what could never apply is refused at once.
import t from 'tap';
import { insertPendingChange } from '../../../domains/pending-changes/store.ts';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';
import { approve, count, owned } from '../../helpers/entities.ts';

t.test('every entity type and action: diverted, then applied on approval', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const project = await owned(ta, '/api/projects', { space_id: home.id, name: 'Base project' });

  const cases = [
    {
      type: 'page',
      table: 'pages',
      url: '/api/pages',
      create: { title: 'Proposed page' },
      update: { title: 'Renamed page' },
    },
    {
      type: 'project',
      table: 'projects',
      url: '/api/projects',
      create: { name: 'Proposed project' },
      update: { status: 'paused' },
    },
    {
      type: 'task',
      table: 'tasks',
      url: '/api/tasks',
      create: { project_id: project.id, title: 'Proposed task' },
      update: { status: 'doing' },
    },
    {
      type: 'ref',
      table: 'refs',
      url: '/api/refs',
      create: { source: 'web', external_id: 'proposed' },
      update: { title: 'A title' },
    },
    {
      type: 'resource',
      table: 'resources',
      url: '/api/resources',
      create: { name: 'nas', kind: 'vm' },
      update: { notes: 'rack 2' },
    },
    {
      type: 'source_doc',
      table: 'source_docs',
      url: '/api/source-docs',
      create: { title: 'Notes', content: 'hello' },
      update: { title: 'Better notes' },
    },
  ];

  for (const c of cases) {
    const before = await count(ta, c.table);
    const created = await ta.asAgent(suggester.token, { method: 'POST', url: c.url, payload: c.create });
    t.equal(created.statusCode, 202, `${c.type} create is diverted`);
    t.same(Object.keys(created.json()).sort(), ['pending_change_id', 'status']);
    t.equal(created.json().status, 'pending');
    t.equal(await count(ta, c.table), before, `${c.type}: nothing written before approval`);

    const changeId = created.json().pending_change_id;
    const change = (await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${changeId}` })).json();
    t.match(change, {
      id: changeId,
      agent_id: suggester.id,
      entity_type: c.type,
      action: 'create',
      entity_id: null,
      space_id: home.id,
      status: 'pending',
      error: null,
      result_entity_id: null,
    });
    if (c.type !== 'task')
      t.equal(change.payload.space_id, home.id, `${c.type}: the agent's space is injected`);

    const applied = await approve(ta, changeId);
    t.equal(applied.statusCode, 200, `${c.type} create approved`);
    t.match(applied.json(), { status: 'applied', decided_by: 'owner', error: null });
    const entityId = applied.json().result_entity_id;
    t.equal(await count(ta, c.table), before + 1, `${c.type} created on approval`);
    const [row] = await ta.sql`select space_id from ${ta.sql(c.table)} where id = ${entityId}`;
    t.equal(row.space_id, home.id);

    const updated = await ta.asAgent(suggester.token, {
      method: 'PATCH',
      url: `${c.url}/${entityId}`,
      payload: c.update,
    });
    t.equal(updated.statusCode, 202, `${c.type} update is diverted`);
    const [unchanged] = await ta.sql`select * from ${ta.sql(c.table)} where id = ${entityId}`;
    const [field, value] = Object.entries(c.update)[0];
    t.not(unchanged[field], value, `${c.type}: not updated before approval`);
    const updateApplied = await approve(ta, updated.json().pending_change_id);
    t.equal(updateApplied.statusCode, 200);
    t.match(updateApplied.json(), { action: 'update', entity_id: entityId, result_entity_id: entityId });
    const [changed] = await ta.sql`select * from ${ta.sql(c.table)} where id = ${entityId}`;
    t.equal(changed[field], value, `${c.type} updated on approval`);

    const deleted = await ta.asAgent(suggester.token, { method: 'DELETE', url: `${c.url}/${entityId}` });
    t.equal(deleted.statusCode, 202, `${c.type} delete is diverted`);
    t.equal(await count(ta, c.table), before + 1);
    const deleteApplied = await approve(ta, deleted.json().pending_change_id);
    t.equal(deleteApplied.statusCode, 200);
    t.match(deleteApplied.json(), { action: 'delete', payload: null, status: 'applied' });
    t.equal(await count(ta, c.table), before, `${c.type} deleted on approval`);
  }

  const audit = await ta.sql<{ entity_type: string; n: number }[]>`
    select entity_type, count(*)::int as n from audit_log
    where action = 'approve' and outcome = 'applied' and actor = 'owner' group by entity_type order by entity_type`;
  t.same(
    audit.map((row) => `${row.entity_type}:${row.n}`),
    ['page:3', 'project:3', 'ref:3', 'resource:3', 'source_doc:3', 'task:3'],
    'every approval is audited',
  );
});

t.test(
  'a suggest-tier ref upsert becomes an upsert change; a non-upsertable type fails with 422',
  async (t) => {
    const ta = await testApp(t);
    const home = await createSpace(ta, 'Home');
    const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });

    const first = await ta.asAgent(suggester.token, {
      method: 'POST',
      url: '/api/refs/upsert',
      payload: { source: 'github', external_id: 'org/repo', title: 'repo' },
    });
    t.equal(first.statusCode, 202, 'no server error: a pending change');
    const change = (
      await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${first.json().pending_change_id}` })
    ).json();
    t.match(change, { entity_type: 'ref', action: 'upsert', entity_id: null, space_id: home.id });
    t.equal((await approve(ta, change.id)).statusCode, 200);
    const [ref] =
      await ta.sql`select id, title from refs where source = 'github' and external_id = 'org/repo'`;
    t.equal(ref.title, 'repo');

    const again = await ta.asAgent(suggester.token, {
      method: 'POST',
      url: '/api/refs/upsert',
      payload: { source: 'github', external_id: 'org/repo', title: 'renamed repo' },
    });
    const second = await approve(ta, again.json().pending_change_id);
    t.equal(second.statusCode, 200);
    t.equal(second.json().result_entity_id, ref.id, 'the upsert updated the same ref');
    t.equal(await count(ta, 'refs'), 1);
    const [renamed] = await ta.sql`select title from refs where id = ${ref.id}`;
    t.equal(renamed.title, 'renamed repo');

    const pageUpsert = await insertPendingChange(ta.sql, {
      agent_id: suggester.id,
      entity_type: 'page',
      action: 'upsert',
      entity_id: null,
      space_id: home.id,
      payload: { space_id: home.id, title: 'never' },
    });
    const refused = await approve(ta, pageUpsert.id);
    t.equal(refused.statusCode, 422);
    t.match(refused.json(), {
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: /entity type page does not support upsert/,
      pending_change: { id: pageUpsert.id, status: 'pending', error: /page does not support upsert/ },
    });
    t.equal(await count(ta, 'pages'), 0);
    const [failed] = await ta.sql`
    select actor, outcome, detail from audit_log where pending_change_id = ${pageUpsert.id}`;
    t.match(failed, {
      actor: 'owner',
      outcome: 'failed',
      detail: { status_code: 422, entity_action: 'upsert' },
    });
  },
);

t.test('approval failures reopen the change; reject ends it; nothing applies twice', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const suggester = await createAgent(ta, { tier: 'suggest' });
  const page = await owned(ta, '/api/pages', { space_id: home.id, title: 'Doomed' });

  const rename = await ta.asAgent(suggester.token, {
    method: 'PATCH',
    url: `/api/pages/${page.id}`,
    payload: { title: 'Renamed' },
  });
  t.equal(rename.statusCode, 202);
  const changeId = rename.json().pending_change_id;
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/pages/${page.id}` })).statusCode, 204);

  const gone = await approve(ta, changeId);
  t.equal(gone.statusCode, 404, 'the target was deleted meanwhile');
  t.match(gone.json(), {
    message: 'page not found',
    pending_change: { id: changeId, status: 'pending', error: 'page not found', result_entity_id: null },
  });
  t.equal(
    (await approve(ta, changeId)).statusCode,
    404,
    'reopened: it can be approved again (and fail again)',
  );

  const rejected = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${changeId}/reject`,
    payload: { reason: 'the page is gone' },
  });
  t.equal(rejected.statusCode, 200);
  t.match(rejected.json(), { status: 'rejected', reason: 'the page is gone', decided_by: 'owner' });
  const afterReject = await approve(ta, changeId);
  t.equal(afterReject.statusCode, 409, 'a rejected change is never applied');
  t.match(afterReject.json(), {
    message: 'the change is rejected, not pending',
    pending_change: { status: 'rejected' },
  });
  const rejectAgain = await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${changeId}/reject` });
  t.equal(rejectAgain.statusCode, 409);

  // A conflict at approval time reopens the change; once the conflict is gone, it applies.
  const proposal = await ta.asAgent(suggester.token, {
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: home.id, source: 'web', external_id: 'contested' },
  });
  const proposalId = proposal.json().pending_change_id;
  const rival = await owned(ta, '/api/refs', { space_id: home.id, source: 'web', external_id: 'contested' });
  const conflict = await approve(ta, proposalId);
  t.equal(conflict.statusCode, 409);
  t.match(conflict.json().pending_change, { status: 'pending', error: /already exists/ });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/refs/${rival.id}` })).statusCode, 204);
  const applied = await approve(ta, proposalId);
  t.equal(applied.statusCode, 200);
  t.match(applied.json(), { status: 'applied', error: null });
  t.equal((await approve(ta, proposalId)).statusCode, 409, 'an applied change is not applied again');
  t.equal(await count(ta, 'refs'), 1);

  const missing = await approve(ta, '00000000-0000-4000-8000-000000000000');
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().message, 'pending change not found');
  const missingReject = await ta.asOwner({
    method: 'POST',
    url: '/api/pending-changes/00000000-0000-4000-8000-000000000000/reject',
  });
  t.equal(missingReject.statusCode, 404);
  t.equal((await approve(ta, 'not-a-uuid')).statusCode, 400);

  const outcomes = await ta.sql<{ action: string; outcome: string }[]>`
    select action, outcome from audit_log order by created_at, id`;
  t.same(
    outcomes.map((row) => `${row.action}:${row.outcome}`),
    // The owner's own deletes (to the trash) are audited too.
    [
      'trash:applied',
      'approve:failed',
      'approve:failed',
      'reject:rejected',
      'approve:failed',
      'trash:applied',
      'approve:applied',
    ],
  );
});

t.test('suggestions are rehearsed: what could never apply is refused at once', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const workPage = await owned(ta, '/api/pages', { space_id: work.id, title: 'Work page' });
  const scoped = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const unscoped = await createAgent(ta, { tier: 'suggest' });

  const outside = await ta.asAgent(scoped.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: work.id, title: 'x' },
  });
  t.equal(outside.statusCode, 404, 'outside the scope');
  const outsideEdit = await ta.asAgent(scoped.token, {
    method: 'PATCH',
    url: `/api/pages/${workPage.id}`,
    payload: { title: 'x' },
  });
  t.equal(outsideEdit.statusCode, 404);
  const missing = await ta.asAgent(scoped.token, {
    method: 'DELETE',
    url: '/api/pages/00000000-0000-4000-8000-000000000000',
  });
  t.equal(missing.statusCode, 404);
  const noSpace = await ta.asAgent(unscoped.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { title: 'x' },
  });
  t.equal(
    noSpace.statusCode,
    202,
    'an unscoped agent naming no space proposes a create in the default space',
  );
  const inbox = await ta.sql`select id from spaces where name = 'Inbox'`;
  const proposed =
    await ta.sql`select space_id from pending_changes where id = ${noSpace.json().pending_change_id}`;
  t.equal(proposed[0]?.space_id, inbox[0]?.id, 'the change names the default space, which exists');
  const invalid = await ta.asAgent(scoped.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { title: '' },
  });
  t.equal(invalid.statusCode, 400);
  t.equal(await count(ta, 'pending_changes'), 1, 'none of the refused ones was recorded');
  t.equal(await count(ta, 'pages'), 1, 'and the rehearsals left nothing behind');

  const ok = await ta.asAgent(unscoped.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: work.id, title: 'fine' },
  });
  t.equal(ok.statusCode, 202);
  t.equal(await count(ta, 'pages'), 1);
});
