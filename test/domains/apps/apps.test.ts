// Apps: the launcher's tiles over REST, the tool protocol and search; groups with contiguous positions; status from
// the linked service's cached state; agents read, and their writes wait for approval.
import t from 'tap';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';

const ta = await testApp(t, { env: { AGENT_RATE_LIMIT: '100000' } });

async function addApp(payload: Record<string, unknown>): Promise<{ id: string } & Record<string, unknown>> {
  const response = await ta.asOwner({ method: 'POST', url: '/api/apps', payload });
  if (response.statusCode !== 201) throw new Error(`adding an app failed: ${response.body}`);
  return response.json();
}

async function positions(app: TestApp, group: string): Promise<string[]> {
  const response = await app.asOwner({ method: 'GET', url: `/api/apps?group=${encodeURIComponent(group)}` });
  return response
    .json()
    .items.map((item: { name: string; position: number }) => `${item.position}:${item.name}`);
}

t.test('apps are created in groups with contiguous positions, moved and deleted', async (t) => {
  const grafana = await addApp({ name: 'Grafana', href: 'https://grafana.lan', group: 'Monitoring' });
  t.match(grafana, {
    name: 'Grafana',
    href: 'https://grafana.lan',
    description: '',
    icon: null,
    icon_url: null,
    group: 'Monitoring',
    position: 0,
    status: 'unknown',
    latency_ms: null,
  });
  const prom = await addApp({ name: 'Prometheus', href: 'http://prom.lan:9090', group: 'Monitoring' });
  const loki = await addApp({ name: 'Loki', href: 'http://loki.lan', group: 'Monitoring', position: 0 });
  t.same(await positions(ta, 'Monitoring'), ['0:Loki', '1:Grafana', '2:Prometheus']);

  // A position past the end is clamped to it.
  const moved = await ta.asOwner({ method: 'PATCH', url: `/api/apps/${loki.id}`, payload: { position: 99 } });
  t.equal(moved.statusCode, 200);
  t.equal(moved.json().position, 2);
  t.same(await positions(ta, 'Monitoring'), ['0:Grafana', '1:Prometheus', '2:Loki']);

  // Moving between groups closes the gap in the old one.
  await addApp({ name: 'Jellyfin', href: 'https://media.lan', group: 'Media' });
  const across = await ta.asOwner({
    method: 'PATCH',
    url: `/api/apps/${grafana.id}`,
    payload: { group: 'Media', position: 0, description: 'Dashboards' },
  });
  t.equal(across.statusCode, 200);
  t.match(across.json(), { group: 'Media', position: 0, description: 'Dashboards' });
  t.same(await positions(ta, 'Monitoring'), ['0:Prometheus', '1:Loki']);
  t.same(await positions(ta, 'Media'), ['0:Grafana', '1:Jellyfin']);

  const deleted = await ta.asOwner({ method: 'DELETE', url: `/api/apps/${prom.id}` });
  t.equal(deleted.statusCode, 204);
  t.same(await positions(ta, 'Monitoring'), ['0:Loki']);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/apps/${prom.id}` })).json().code, 'APP_NOT_FOUND');

  // Groups in the order of their first app: Grafana, the first app added, is in Media now.
  const all = (await ta.asOwner({ method: 'GET', url: '/api/apps' })).json();
  t.equal(all.total, 3);
  t.same(
    all.items.map((item: { group: string; name: string }) => `${item.group}/${item.name}`),
    ['Media/Grafana', 'Media/Jellyfin', 'Monitoring/Loki'],
  );
  const found = (await ta.asOwner({ method: 'GET', url: '/api/apps?q=dashboards' })).json();
  t.same(
    found.items.map((item: { name: string }) => item.name),
    ['Grafana'],
  );
  await ta.sql`delete from apps`;
});

t.test('links are http or https only, and what an app names must exist', async (t) => {
  for (const href of ['javascript:alert(1)', 'file:///etc/passwd', 'ftp://nas.lan', 'data:text/html,x']) {
    const response = await ta.asOwner({ method: 'POST', url: '/api/apps', payload: { name: 'x', href } });
    t.equal(response.statusCode, 400, href);
    t.equal(response.json().code, 'URL_REFUSED', href);
  }
  const app = await addApp({ name: 'NAS', href: 'https://nas.lan' });
  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/apps/${app.id}`,
    payload: { href: 'javascript:void(0)' },
  });
  t.equal(patched.json().code, 'URL_REFUSED');
  const noService = await ta.asOwner({
    method: 'PATCH',
    url: `/api/apps/${app.id}`,
    payload: { service_id: '00000000-0000-4000-8000-000000000000' },
  });
  t.equal(noService.json().code, 'SERVICE_NOT_FOUND');
  const noDevice = await ta.asOwner({
    method: 'PATCH',
    url: `/api/apps/${app.id}`,
    payload: { device_mac: 'AA-BB-CC-DD-EE-FF' },
  });
  t.equal(noDevice.json().code, 'DEVICE_NOT_FOUND');
  const badIcon = await ta.asOwner({
    method: 'PATCH',
    url: `/api/apps/${app.id}`,
    payload: { icon: 'brand:no-such-brand-anywhere' },
  });
  t.equal(badIcon.statusCode, 400);
  const icon = await ta.asOwner({
    method: 'PATCH',
    url: `/api/apps/${app.id}`,
    payload: { icon: 'brand:github' },
  });
  t.match(icon.json(), { icon: 'brand:github', icon_url: '/api/icons/github.png' });
  await ta.sql`delete from apps`;
});

t.test("status and latency come from the linked service's cached state", async (t) => {
  const service = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'Wiki', kind: 'http', url: 'http://127.0.0.1:9/wiki' },
  });
  t.equal(service.statusCode, 201, service.body);
  const serviceId = service.json().id;
  const app = await addApp({ name: 'Wiki', href: 'http://127.0.0.1:9/wiki', service_id: serviceId });
  t.match(app, { status: 'pending', latency_ms: null, service_id: serviceId });
  await ta.sql`update monitored_services set state = 'up', latency_ms = 42 where id = ${serviceId}`;
  t.match((await ta.asOwner({ method: 'GET', url: `/api/apps/${app.id}` })).json(), {
    status: 'up',
    latency_ms: 42,
  });
  await ta.sql`update monitored_services set state = 'down' where id = ${serviceId}`;
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/apps' })).json().items[0].status, 'down');
  const paused = await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${serviceId}`,
    payload: { enabled: false },
  });
  t.equal(paused.statusCode, 200, paused.body);
  t.match((await ta.asOwner({ method: 'GET', url: `/api/apps/${app.id}` })).json(), {
    status: 'paused',
    latency_ms: null,
  });
  // The service going leaves the app, unlinked.
  await ta.asOwner({ method: 'DELETE', url: `/api/health/services/${serviceId}` });
  t.match((await ta.asOwner({ method: 'GET', url: `/api/apps/${app.id}` })).json(), {
    status: 'unknown',
    service_id: null,
  });
  await ta.sql`delete from apps`;
});

t.test('agents read apps; their writes follow their tier', async (t) => {
  const reader = await createAgent(ta, { tier: 'read' });
  const suggester = await createAgent(ta, { tier: 'suggest' });
  const owner = await createAgent(ta, { tier: 'owner' });
  const scoped = await createAgent(ta, { tier: 'owner', space_id: (await createSpace(ta)).id });
  const app = await addApp({ name: 'Router', href: 'http://192.168.1.1' });

  t.equal((await ta.asAgent(reader.token, { method: 'GET', url: '/api/apps' })).json().total, 1);
  t.equal((await ta.asAgent(scoped.token, { method: 'GET', url: `/api/apps/${app.id}` })).statusCode, 200);
  const refused = await ta.asAgent(reader.token, {
    method: 'POST',
    url: '/api/apps',
    payload: { name: 'x', href: 'https://x.lan' },
  });
  t.equal(refused.json().code, 'TIER_CANNOT_WRITE');

  const proposed = await ta.asAgent(suggester.token, {
    method: 'POST',
    url: '/api/apps',
    payload: { name: 'Home Assistant', href: 'http://ha.lan:8123', group: 'Home' },
  });
  t.equal(proposed.statusCode, 202);
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/apps?group=Home' })).json().total, 0, 'not yet');
  const pendingId = proposed.json().pending_change_id;
  const approved = await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${pendingId}/approve` });
  t.equal(approved.statusCode, 200, approved.body);
  t.same(await positions(ta, 'Home'), ['0:Home Assistant']);

  // A proposal that could never apply is refused at once.
  const bad = await ta.asAgent(suggester.token, {
    method: 'PATCH',
    url: `/api/apps/${app.id}`,
    payload: { href: 'javascript:x' },
  });
  t.equal(bad.json().code, 'URL_REFUSED');

  const direct = await ta.asAgent(owner.token, {
    method: 'PATCH',
    url: `/api/apps/${app.id}`,
    payload: { name: 'Gateway' },
  });
  t.equal(direct.statusCode, 200);
  t.equal(direct.json().name, 'Gateway');
  const audited = await ta.sql`select entity_type, entity_id from audit_log where action = 'apply_direct'`;
  t.same(audited.at(-1), { entity_type: 'app', entity_id: app.id });

  const outOfScope = await ta.asAgent(scoped.token, {
    method: 'DELETE',
    url: `/api/apps/${app.id}`,
  });
  t.equal(outOfScope.statusCode, 403);
  t.equal(outOfScope.json().code, 'APP_OUT_OF_SCOPE');
  await ta.sql`delete from apps`;
});

t.test('apps are found by search (kinds=apps) and listed by the list_apps tool', async (t) => {
  await addApp({
    name: 'Paperless',
    href: 'https://docs.lan',
    description: 'Scanned letters',
    group: 'Office',
  });
  const hits = (await ta.asOwner({ method: 'GET', url: '/api/search?q=scanned&kinds=apps' })).json();
  t.equal(hits.total, 1);
  t.match(hits.items[0], { kind: 'apps', title: 'Paperless', url: 'https://docs.lan' });
  t.notOk('space_id' in hits.items[0]);
  const prefix = (await ta.asOwner({ method: 'GET', url: '/api/search?q=paperl' })).json();
  t.ok(
    prefix.items.some((hit: { kind: string }) => hit.kind === 'apps'),
    'found among all kinds',
  );
  const space = await createSpace(ta);
  const inSpace = (
    await ta.asOwner({ method: 'GET', url: `/api/search?q=scanned&space_id=${space.id}` })
  ).json();
  t.equal(inSpace.total, 0, 'a space filter leaves apps out');

  const agent = await createAgent(ta, { tier: 'read' });
  const call = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/mcp',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_apps', arguments: { group: 'Office' } },
    },
  });
  t.equal(call.statusCode, 200, call.body);
  const body = call.body.startsWith('{') ? call.json() : JSON.parse(call.body.split('data: ')[1]);
  t.match(body.result.structuredContent, { total: 1, items: [{ name: 'Paperless', status: 'unknown' }] });
  await ta.sql`delete from apps`;
});
