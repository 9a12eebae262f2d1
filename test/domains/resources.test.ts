import t from 'tap';
import { contextColumns, listResourcesForContext } from '../../domains/resources/store.ts';
import { createAgent, createSpace, type TestApp, testApp } from '../helpers/app.ts';

const secret = { token: 'monitor-secret-123', url: 'http://10.0.0.5:9100' };
const hidden = { root_password: 'hunter2' };

async function resource(ta: TestApp, payload: Record<string, unknown>): Promise<{ id: string }> {
  const response = await ta.asOwner({ method: 'POST', url: '/api/resources', payload });
  if (response.statusCode !== 201) throw new Error(`creating a resource failed: ${response.body}`);
  return response.json();
}

t.test('owner manages resources', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/resources',
    payload: {
      space_id: home.id,
      name: 'nas',
      kind: 'vm',
      host: 'pve1',
      monitoring: secret,
      metadata: hidden,
    },
  });
  t.equal(created.statusCode, 201);
  t.match(created.json(), {
    name: 'nas',
    kind: 'vm',
    host: 'pve1',
    notes: '',
    monitoring: secret,
    metadata: hidden,
    depends_on: [],
  });
  const id = created.json().id;
  await resource(ta, { space_id: home.id, name: 'backup-disk', kind: 'disk' });
  await resource(ta, { space_id: work.id, name: 'router' });

  const bad = await ta.asOwner({
    method: 'POST',
    url: '/api/resources',
    payload: { space_id: home.id, name: 'x', kind: 'Has Spaces' },
  });
  t.equal(bad.statusCode, 400);
  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/resources/${id}`,
    payload: { notes: 'main storage', monitoring: { interval: 60 } },
  });
  t.match(patched.json(), { notes: 'main storage', monitoring: { interval: 60 }, metadata: hidden });

  const list = await ta.asOwner({ method: 'GET', url: `/api/resources?space_id=${home.id}` });
  t.same(
    list.json().items.map((r: { name: string }) => r.name),
    ['backup-disk', 'nas'],
  );
  const disks = await ta.asOwner({ method: 'GET', url: '/api/resources?kind=disk' });
  t.equal(disks.json().total, 1);
  const page = await ta.asOwner({ method: 'GET', url: '/api/resources?limit=1&offset=2' });
  t.same(
    { ...page.json(), items: page.json().items.map((r: { name: string }) => r.name) },
    { items: ['router'], total: 3, limit: 1, offset: 2 },
  );
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/resources/${id}` })).json().notes, 'main storage');
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/resources/${id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/resources/${id}` })).statusCode, 404);
});

t.test('dependencies: owner only, never itself, never a cycle', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const app = await resource(ta, { space_id: space.id, name: 'app' });
  const db = await resource(ta, { space_id: space.id, name: 'db' });
  const disk = await resource(ta, { space_id: space.id, name: 'disk' });
  const add = (from: string, to: string) =>
    ta.asOwner({
      method: 'POST',
      url: `/api/resources/${from}/dependencies`,
      payload: { depends_on_id: to },
    });

  const first = await add(app.id, db.id);
  t.equal(first.statusCode, 201);
  t.match(first.json(), { resource_id: app.id, depends_on_id: db.id });
  t.equal((await add(db.id, disk.id)).statusCode, 201);
  t.equal((await add(app.id, db.id)).statusCode, 409, 'an edge exists once');
  const self = await add(app.id, app.id);
  t.equal(self.statusCode, 409);
  t.match(self.json().message, /itself/);
  const cycle = await add(disk.id, app.id);
  t.equal(cycle.statusCode, 409);
  t.match(cycle.json().message, /cycle/);
  t.equal((await add(app.id, '00000000-0000-4000-8000-000000000000')).statusCode, 404);

  const got = await ta.asOwner({ method: 'GET', url: `/api/resources/${app.id}` });
  t.same(got.json().depends_on, [db.id]);
  const deps = await ta.asOwner({ method: 'GET', url: `/api/resources/${db.id}/dependencies` });
  t.same(
    { ...deps.json(), items: deps.json().items.map((r: { name: string }) => r.name) },
    { items: ['disk'], total: 1, limit: 50, offset: 0 },
  );

  const agent = await createAgent(ta, { tier: 'owner' });
  const agentAdd = await ta.asAgent(agent.token, {
    method: 'POST',
    url: `/api/resources/${app.id}/dependencies`,
    payload: { depends_on_id: disk.id },
  });
  t.equal(agentAdd.statusCode, 403, 'even an owner-tier agent may not wire dependencies');
  const suggester = await createAgent(ta, { tier: 'suggest' });
  const suggestRemove = await ta.asAgent(suggester.token, {
    method: 'DELETE',
    url: `/api/resources/${app.id}/dependencies/${db.id}`,
  });
  t.equal(suggestRemove.statusCode, 403, 'never diverted to a pending change');
  t.equal(
    (await ta.asAgent(agent.token, { method: 'GET', url: `/api/resources/${app.id}/dependencies` }))
      .statusCode,
    200,
    'agents may read dependencies',
  );

  t.equal(
    (await ta.asOwner({ method: 'DELETE', url: `/api/resources/${app.id}/dependencies/${db.id}` }))
      .statusCode,
    204,
  );
  t.equal(
    (await ta.asOwner({ method: 'DELETE', url: `/api/resources/${app.id}/dependencies/${db.id}` }))
      .statusCode,
    404,
  );
  t.equal(
    (await add(disk.id, app.id)).statusCode,
    201,
    'with the path gone, the edge no longer closes a cycle',
  );
});

t.test('concurrent opposite dependencies cannot close a cycle together', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const a = await resource(ta, { space_id: space.id, name: 'a' });
  const b = await resource(ta, { space_id: space.id, name: 'b' });
  const results = await Promise.all([
    ta.asOwner({
      method: 'POST',
      url: `/api/resources/${a.id}/dependencies`,
      payload: { depends_on_id: b.id },
    }),
    ta.asOwner({
      method: 'POST',
      url: `/api/resources/${b.id}/dependencies`,
      payload: { depends_on_id: a.id },
    }),
  ]);
  t.same(results.map((r) => r.statusCode).sort(), [201, 409]);
  const [count] = await ta.sql`select count(*)::int as n from resource_dependencies`;
  t.equal(count.n, 1);
});

t.test('monitoring and metadata never leave towards agents', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const nas = await resource(ta, { space_id: home.id, name: 'nas', monitoring: secret, metadata: hidden });
  const disk = await resource(ta, { space_id: home.id, name: 'disk', monitoring: secret, metadata: hidden });
  await resource(ta, { space_id: work.id, name: 'router', monitoring: secret, metadata: hidden });
  await ta.asOwner({
    method: 'POST',
    url: `/api/resources/${nas.id}/dependencies`,
    payload: { depends_on_id: disk.id },
  });

  t.notOk((contextColumns as readonly string[]).includes('monitoring'));
  t.notOk((contextColumns as readonly string[]).includes('metadata'));
  const context = await listResourcesForContext(ta.sql, home.id, { columns: 'context', within: null });
  t.same(
    context.map((r) => [r.name, r.depends_on]),
    [
      ['disk', []],
      ['nas', [disk.id]],
    ],
  );
  for (const row of context) {
    t.same(Object.keys(row).sort(), [...contextColumns, 'depends_on'].sort(), 'allow-listed columns only');
  }
  const everywhere = await listResourcesForContext(ta.sql, null, { columns: 'context', within: null });
  t.equal(everywhere.length, 3);
  t.notMatch(JSON.stringify(everywhere), /monitor-secret|hunter2|monitoring|metadata/);

  const agent = await createAgent(ta, { tier: 'owner', space_id: home.id });
  const responses = [
    await ta.asAgent(agent.token, { method: 'GET', url: '/api/resources' }),
    await ta.asAgent(agent.token, { method: 'GET', url: `/api/resources/${nas.id}` }),
    await ta.asAgent(agent.token, { method: 'GET', url: `/api/resources/${nas.id}/dependencies` }),
    await ta.asAgent(agent.token, {
      method: 'PATCH',
      url: `/api/resources/${nas.id}`,
      payload: { notes: 'agent note' },
    }),
    await ta.asAgent(agent.token, {
      method: 'POST',
      url: '/api/resources',
      payload: { name: 'agent-made', monitoring: secret, metadata: hidden },
    }),
  ];
  t.same(
    responses.map((r) => r.statusCode),
    [200, 200, 200, 200, 201],
  );
  for (const response of responses)
    t.notMatch(response.body, /monitor-secret|hunter2|"monitoring"|"metadata"/);
  t.equal(responses[0].json().total, 2, 'the agent sees its own space only');
  const [stored] = await ta.sql`select monitoring from resources where name = 'agent-made'`;
  t.same(stored.monitoring, secret, 'the owner-only columns are still stored');
  t.match((await ta.asOwner({ method: 'GET', url: `/api/resources/${nas.id}` })).json(), {
    monitoring: secret,
  });
});

t.test("a scoped agent sees only its space's side of a dependency", async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const app = await resource(ta, { space_id: home.id, name: 'app' });
  const cache = await resource(ta, { space_id: home.id, name: 'cache' });
  const ledger = await resource(ta, { space_id: work.id, name: 'payroll-db' });
  // The owner linked across spaces.
  for (const target of [cache, ledger]) {
    const linked = await ta.asOwner({
      method: 'POST',
      url: `/api/resources/${app.id}/dependencies`,
      payload: { depends_on_id: target.id },
    });
    t.equal(linked.statusCode, 201);
  }
  const scoped = await createAgent(ta, { tier: 'owner', space_id: home.id });
  const as = (url: string, request: Record<string, unknown> = {}) =>
    ta.asAgent(scoped.token, { method: 'GET', url, ...request });

  const dependencies = await as(`/api/resources/${app.id}/dependencies`);
  t.equal(dependencies.statusCode, 200);
  t.same(
    dependencies.json().items.map((item: { name: string }) => item.name),
    ['cache'],
    "the dependency list holds its space's side only",
  );
  t.equal(dependencies.json().total, 1, 'and counts it so');
  const reads = [
    await as(`/api/resources/${app.id}`),
    await as('/api/resources'),
    await as(`/api/resources/${app.id}`, {
      method: 'PATCH',
      payload: { notes: 'checked by the agent' },
    }),
  ];
  for (const response of reads)
    t.notMatch(response.body, new RegExp(`${ledger.id}|payroll`), 'never the other id');
  t.same(reads[0].json().depends_on, [cache.id], 'depends_on in its read');
  t.same(reads[2].json().depends_on, [cache.id], 'and in what its write answers');
  const tool = await ta.asAgent(scoped.token, {
    method: 'POST',
    url: '/api/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_context', arguments: {} } },
  });
  t.notMatch(tool.body, new RegExp(ledger.id), 'the context tool likewise');
  t.match(tool.body, new RegExp(cache.id));

  const unscoped = await createAgent(ta, { tier: 'read' });
  const all = await ta.asAgent(unscoped.token, {
    method: 'GET',
    url: `/api/resources/${app.id}/dependencies`,
  });
  t.equal(all.json().total, 2, 'an agent that reaches every space sees both sides');
  const owner = await ta.asOwner({ method: 'GET', url: `/api/resources/${app.id}` });
  t.same(new Set(owner.json().depends_on), new Set([cache.id, ledger.id]), 'the owner sees both');
});
