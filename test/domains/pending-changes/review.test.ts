// The owner's review: concurrent approvals apply a change exactly once, abandoned claims are recovered, lists
// filter and paginate, and only the owner reviews (dependency wiring is never diverted).
import t from 'tap';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';
import { approve, count, type Json, owned } from '../../helpers/entities.ts';

t.test('50 concurrent approvals of one change apply it exactly once', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const proposed = await ta.asAgent(suggester.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { title: 'Exactly once' },
  });
  const changeId = proposed.json().pending_change_id;

  const answers = await Promise.all(Array.from({ length: 50 }, () => approve(ta, changeId)));
  const codes = answers.map((answer) => answer.statusCode).sort();
  t.equal(codes.filter((code) => code === 200).length, 1, 'one approval applies it');
  t.equal(codes.filter((code) => code === 409).length, 49, 'every other one is a conflict');
  t.equal(await count(ta, 'pages'), 1, 'one page created');
  const [row] = await ta.sql`select status, result_entity_id from pending_changes where id = ${changeId}`;
  t.equal(row.status, 'applied');
  const [audited] = await ta.sql`
    select count(*)::int as n from audit_log where pending_change_id = ${changeId} and outcome = 'applied'`;
  t.equal(audited.n, 1);
});

t.test('an abandoned claim can be taken over; a fresh one cannot', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const proposed = await ta.asAgent(suggester.token, {
    method: 'POST',
    url: '/api/projects',
    payload: { name: 'Claimed' },
  });
  const changeId = proposed.json().pending_change_id;

  await ta.sql`update pending_changes set status = 'applying' where id = ${changeId}`;
  const busy = await approve(ta, changeId);
  t.equal(busy.statusCode, 409, 'another approval is applying it');
  t.match(busy.json(), { message: 'the change is applying, not pending' });

  // An approval that died mid-apply left the claim behind; its transaction rolled back.
  await ta.sql`update pending_changes set updated_at = now() - interval '10 minutes' where id = ${changeId}`;
  const taken = await approve(ta, changeId);
  t.equal(taken.statusCode, 200);
  t.equal(await count(ta, 'projects'), 1);
});

t.test('lists filter by status, agent, entity type and action, and paginate', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const alice = await createAgent(ta, { name: 'alice', tier: 'suggest', space_id: home.id });
  const bob = await createAgent(ta, { name: 'bob', tier: 'suggest', space_id: home.id });
  const propose = async (token: string, url: string, payload: Json) => {
    const response = await ta.asAgent(token, { method: 'POST', url, payload });
    if (response.statusCode !== 202) throw new Error(`proposal failed: ${response.body}`);
    return response.json().pending_change_id as string;
  };
  const a1 = await propose(alice.token, '/api/pages', { title: 'a1' });
  const a2 = await propose(alice.token, '/api/pages', { title: 'a2' });
  const a3 = await propose(alice.token, '/api/projects', { name: 'a3' });
  const b1 = await propose(bob.token, '/api/refs/upsert', { source: 'web', external_id: 'b1' });
  const b2 = await propose(bob.token, '/api/pages', { title: 'b2' });
  await approve(ta, a2);
  await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${b2}/reject`, payload: {} });

  const list = async (query: string) => {
    const response = await ta.asOwner({ method: 'GET', url: `/api/pending-changes${query}` });
    t.equal(response.statusCode, 200, query);
    return response.json();
  };
  const ids = (page: { items: { id: string }[] }) => page.items.map((item) => item.id);

  const all = await list('');
  t.equal(all.total, 5);
  t.same(ids(all), [b2, b1, a3, a2, a1], 'newest first');
  t.same(ids(await list('?status=pending')), [b1, a3, a1]);
  t.same(ids(await list('?status=applied')), [a2]);
  t.same(ids(await list('?status=rejected')), [b2]);
  t.same(ids(await list(`?agent_id=${alice.id}`)), [a3, a2, a1]);
  t.same(ids(await list(`?agent_id=${bob.id}&status=pending`)), [b1]);
  t.same(ids(await list('?entity_type=page')), [b2, a2, a1]);
  t.same(ids(await list('?action=upsert')), [b1]);
  t.same(ids(await list('?entity_type=project&status=pending')), [a3]);
  const paged = await list('?limit=2&offset=1');
  t.same({ ...paged, items: ids(paged) }, { items: [b1, a3], total: 5, limit: 2, offset: 1 });
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/pending-changes?status=done' })).statusCode, 400);
  t.equal(
    (await ta.asOwner({ method: 'GET', url: '/api/pending-changes?entity_type=space' })).statusCode,
    400,
  );
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/pending-changes?limit=101' })).statusCode, 400);
  t.equal(
    (await ta.asOwner({ method: 'GET', url: '/api/pending-changes/00000000-0000-4000-8000-000000000000' }))
      .statusCode,
    404,
  );
});

t.test('review is owner-only; dependency wiring is never diverted', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const agents = {
    read: await createAgent(ta, { tier: 'read' }),
    suggest: await createAgent(ta, { tier: 'suggest' }),
    owner: await createAgent(ta, { tier: 'owner' }),
  };
  const proposed = await ta.asAgent(agents.suggest.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: home.id, title: 'x' },
  });
  const changeId = proposed.json().pending_change_id;
  const app = await owned(ta, '/api/resources', { space_id: home.id, name: 'app' });
  const db = await owned(ta, '/api/resources', { space_id: home.id, name: 'db' });

  const routes = [
    { method: 'GET', url: '/api/pending-changes' },
    { method: 'GET', url: `/api/pending-changes/${changeId}` },
    { method: 'POST', url: `/api/pending-changes/${changeId}/approve` },
    { method: 'POST', url: `/api/pending-changes/${changeId}/reject` },
    { method: 'GET', url: '/api/audit' },
  ] as const;
  for (const route of routes) {
    for (const [tier, agent] of Object.entries(agents)) {
      const response = await ta.asAgent(agent.token, route);
      t.equal(response.statusCode, 403, `${tier}-tier agent: ${route.method} ${route.url}`);
    }
    t.equal((await ta.anon(route)).statusCode, 401, `anonymous: ${route.method} ${route.url}`);
  }
  t.equal(
    (await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${changeId}` })).json().status,
    'pending',
  );

  for (const [tier, agent] of Object.entries(agents)) {
    const add = await ta.asAgent(agent.token, {
      method: 'POST',
      url: `/api/resources/${app.id}/dependencies`,
      payload: { depends_on_id: db.id },
    });
    t.equal(add.statusCode, 403, `${tier}-tier agent cannot add a dependency`);
    const remove = await ta.asAgent(agent.token, {
      method: 'DELETE',
      url: `/api/resources/${app.id}/dependencies/${db.id}`,
    });
    t.equal(remove.statusCode, 403, `${tier}-tier agent cannot remove a dependency`);
  }
  t.equal(await count(ta, 'pending_changes'), 1, 'dependency wiring never became a pending change');
  t.equal(await count(ta, 'resource_dependencies'), 0);
});
