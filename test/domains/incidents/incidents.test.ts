// Incidents the hub opens itself, through the real paths: a Proxmox host's web UI (a real HTTP server on loopback)
// stops answering and the health check's round records it down; the timeline's event queues the follower, which
// opens one incident with its page in the Incidents space and a link to the owner's runbook about the host. A service
// on the same host failing joins it; both recovering resolve it with its duration. A failed backup and storage at
// ATTENTION open incidents of their own; the page keeps what the owner wrote under "Resolution".
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { followTimeline } from '../../../domains/incidents/follow.ts';
import { incidentView } from '../../../domains/incidents/incidents.ts';
import { checkStorage } from '../../../domains/proxmox/storage-watch.ts';
import { startFlakyServer } from '../../helpers/alert-receiver.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { until } from '../../helpers/process.ts';
import { startUpstream } from '../../helpers/upstream.ts';

/** The host's web UI: answers until stopped, and again when started on the same port. */
const host = http.createServer((_request, response) => response.end('Proxmox VE'));
await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
const hostPort = (host.address() as AddressInfo).port;
t.teardown(() => {
  host.closeAllConnections();
  host.close();
});
const stopHost = () =>
  new Promise<void>((resolve) => {
    host.close(() => resolve());
    host.closeAllConnections();
  });
const startHost = () => new Promise<void>((resolve) => host.listen(hostPort, '127.0.0.1', resolve));

const apps = await startFlakyServer(t);

// Proxmox's API for the storage roll-up: one pool whose health the test sets.
const pool = { health: 'ONLINE' };
const pve = await startUpstream(t, (request, response) => {
  const route = (request.url ?? '/').split('?')[0].replace(/^\/api2\/json/, '');
  const answers: Record<string, unknown> = {
    '/cluster/status': [{ type: 'node', id: 'node/pve1', name: 'pve1', online: 1, local: 1, nodeid: 0 }],
    '/cluster/resources': [],
    '/storage': [],
    '/nodes/pve1/disks/zfs': [
      { name: 'tank', size: 100, alloc: 10, free: 90, frag: 1, dedup: 1, health: pool.health },
    ],
    '/nodes/pve1/lxc': [],
  };
  if (!(route in answers)) return response.writeHead(501).end('{"data":null}');
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ data: answers[route] }));
});

const ta = await testApp(t, {
  worker: true,
  env: { PVE_URL: pve.url, PVE_TOKEN: 'monitor@pve!hub=secret' },
});
const deps = { sql: ta.sql, config: ta.config };

async function call(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: Record<string, unknown>) {
  const response = await ta.asOwner({ method, url, payload });
  if (response.statusCode >= 300)
    throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

interface IncidentJson {
  id: string;
  title: string;
  state: string;
  duration_s: number | null;
  root: { type: string; id: string; name: string; failing: boolean };
  affected: { type: string; id: string; name: string; failing: boolean }[];
  events: { kind: string }[];
  page_id: string | null;
}

const incidents = async (query = ''): Promise<IncidentJson[]> =>
  (await call('GET', `/api/incidents${query}`)).items;
const page = async (id: string) => call('GET', `/api/pages/${id}`);
const eventsOf = (kind: string) =>
  ta.sql<{ subject_id: string; data: Record<string, unknown> }[]>`
    select subject_id, data from events where kind = ${kind} order by id`;

/** Waits for the follower the events queued (the worker runs it) to have read every event so far. */
async function followed() {
  await until('the incidents follower to read the timeline', async () => {
    const [row] = await ta.sql<{ behind: boolean }[]>`
      select exists (select 1 from events, incidents_follower follower
        where (events.tx, events.id) > (follower.last_event_tx, follower.last_event_id)
          and kind in ('service.down', 'service.up', 'backup.failed', 'backup.ingested', 'storage.attention',
                       'storage.healthy')) as behind`;
    return row.behind ? undefined : true;
  });
}

const space = await call('POST', '/api/spaces', { name: 'Homelab' });
const runbook = await call('POST', '/api/pages', {
  space_id: space.id,
  title: 'When the Proxmox host is unreachable',
  body: 'Check the pve1 power and the switch port; the Proxmox web UI answers on 8006.',
});
const mediaRunbook = await call('POST', '/api/pages', {
  space_id: space.id,
  title: 'Jellyfin notes',
  body: 'Jellyfin keeps its library on tank/media; restart the container after a pool import.',
});
const pveResource = await call('POST', '/api/resources', { name: 'pve1', kind: 'host' });
const hostService = await call('POST', '/api/health/services', {
  name: 'Proxmox',
  kind: 'http',
  url: `http://127.0.0.1:${hostPort}/`,
  resource_id: pveResource.id,
  host_check: true,
});
const jellyfin = await call('POST', '/api/health/services', {
  name: 'Jellyfin',
  kind: 'http',
  url: `${apps.url}/jellyfin`,
  resource_id: pveResource.id,
});

t.test(
  'an outage opens one incident with its page; a failure under it joins; recovery resolves it',
  async (t) => {
    await checkServices(deps, {});
    await followed();
    t.same(await incidents(), [], 'all up: no incident');

    await stopHost();
    await checkServices(deps, {});
    const [down] = await eventsOf('service.down');
    t.match(
      down,
      { subject_id: hostService.id, data: { service: 'Proxmox', to: 'down' } },
      'recorded on the timeline',
    );
    await followed();
    const [opened, ...more] = await incidents();
    t.same(more, [], 'one incident');
    t.match(opened, {
      title: 'Proxmox is down',
      state: 'open',
      duration_s: null,
      root: { type: 'service', id: hostService.id, name: 'Proxmox', failing: true },
      affected: [],
    });
    t.ok(opened.page_id, 'it has a page');
    const first = await page(opened.page_id as string);
    const incidentsSpace = (await call('GET', '/api/spaces')).items.find(
      (s: { name: string }) => s.name === 'Incidents',
    );
    t.equal(first.space_id, incidentsSpace.id, 'in the Incidents space');
    t.match(
      first.body,
      `[${runbook.title}](/knowledge/page/${runbook.id})`,
      'links the runbook about the host',
    );
    t.notMatch(first.body, mediaRunbook.id, 'not yet the notes of a service not in it');
    t.match(first.body, /## Resolution/);
    t.equal((await eventsOf('incident.opened')).length, 1, 'incident.opened on the timeline');

    // The owner writes under Resolution in the page itself, as any edit.
    const owners = `${first.body}\nThe UPS tripped; moved pve1 to the other outlet.\n`;
    await call('PATCH', `/api/pages/${first.id}`, { body: owners });

    apps.failing.add('/jellyfin');
    await checkServices(deps, {});
    await followed();
    const [joined, ...none] = await incidents();
    t.same(none, [], 'the service on the same host joins the open incident');
    t.match(joined, {
      id: opened.id,
      state: 'open',
      affected: [{ type: 'service', id: jellyfin.id, name: 'Jellyfin', failing: true }],
    });
    const second = await page(opened.page_id as string);
    t.match(second.body, `(/knowledge/page/${mediaRunbook.id})`, 'the joined service brings its notes');
    t.match(
      second.body,
      'The UPS tripped; moved pve1 to the other outlet.',
      "the owner's resolution is kept",
    );
    t.notMatch(second.body, /No page mentions/);

    // The host is back; Jellyfin not yet: still open.
    await startHost();
    await checkServices(deps, {});
    await followed();
    t.match(await incidents(), [{ id: opened.id, state: 'open', root: { failing: false } }]);

    apps.failing.clear();
    await checkServices(deps, {});
    await followed();
    const [resolved] = await incidents();
    t.match(resolved, { id: opened.id, state: 'resolved', affected: [{ failing: false }] });
    t.type(resolved.duration_s, 'number');
    t.ok((resolved.duration_s as number) >= 0);
    const [event] = await eventsOf('incident.resolved');
    t.match(event, { subject_id: opened.id, data: { duration_s: resolved.duration_s } });
    const last = await page(opened.page_id as string);
    t.match(last.body, /\*\*Resolved\*\* at/);
    t.match(last.body, 'The UPS tripped; moved pve1 to the other outlet.', 'kept again on resolution');
    const history = await call('GET', `/api/pages/${first.id}/versions`);
    t.ok(history.total >= 4, `every rewrite is a version in the page's history (${history.total})`);

    // An agent sees it, with the page.
    const view = await incidentView(ta.sql, opened.id);
    t.match(view, { incident: { id: opened.id, state: 'resolved' }, page: { id: opened.page_id } });
  },
);

t.test('the owner names an incident, resolves it by hand and writes the resolution', async (t) => {
  await call('POST', '/api/backups', {
    started_at: '2026-11-26T01:00:00Z',
    finished_at: '2026-11-26T01:30:00Z',
    status: 'failed',
    target: { name: 'nas', free_bytes: 10, total_bytes: 100 },
    guests: [{ vmid: 101, name: 'jellyfin', size_bytes: 0, status: 'failed', duration_s: 3 }],
  });
  await followed();
  const [failed] = await incidents('?state=open');
  t.match(failed, {
    title: 'Backup to nas failed',
    root: { type: 'backup', id: 'nas', failing: true },
  });

  const named = await call('PATCH', `/api/incidents/${failed.id}`, {
    title: 'NAS backup failed: disk full',
    resolution: 'Pruned old snapshots on the NAS.',
  });
  t.match(named, { title: 'NAS backup failed: disk full', state: 'open' });
  const resolved = await call('PATCH', `/api/incidents/${failed.id}`, { state: 'resolved' });
  t.match(resolved, { state: 'resolved' });
  t.type(resolved.duration_s, 'number');
  const body = (await page(failed.page_id as string)).body;
  t.match(body, /## Resolution\n\nPruned old snapshots on the NAS\./, 'written under its heading');
  t.match(body, /\*\*Resolved\*\*/);

  // A later good run of the same target resolves nothing more (it is resolved) and opens nothing.
  await call('POST', '/api/backups', {
    started_at: '2026-11-26T02:00:00Z',
    finished_at: '2026-11-26T02:30:00Z',
    status: 'ok',
    target: { name: 'nas', free_bytes: 50, total_bytes: 100 },
    guests: [],
  });
  await followed();
  t.same(await incidents('?state=open'), []);

  const missing = await ta.asOwner({
    method: 'PATCH',
    url: `/api/incidents/${crypto.randomUUID()}`,
    payload: { title: 'x' },
  });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'INCIDENT_NOT_FOUND');
});

t.test('a failed backup resolves with the next good run of its target', async (t) => {
  const run = (status: string, finished: string) =>
    call('POST', '/api/backups', {
      started_at: '2026-11-26T03:00:00Z',
      finished_at: finished,
      status,
      target: { name: 'usb', free_bytes: 10, total_bytes: 100 },
      guests: [],
    });
  await run('failed', '2026-11-26T03:10:00Z');
  await followed();
  const [open] = await incidents('?state=open');
  t.match(open, { title: 'Backup to usb failed', root: { type: 'backup', id: 'usb' } });
  await run('ok', '2026-11-26T03:20:00Z');
  await followed();
  t.same(await incidents('?state=open'), []);
  const [resolved] = (await incidents()).filter((incident) => incident.id === open.id);
  t.match(resolved, { state: 'resolved', duration_s: 600 });
});

t.test('storage at ATTENTION opens an incident; HEALTHY again resolves it', async (t) => {
  pool.health = 'DEGRADED';
  await checkStorage(deps);
  await followed();
  const [open] = await incidents('?state=open');
  t.match(open, {
    title: 'Storage needs attention',
    root: { type: 'storage', id: 'proxmox', failing: true },
  });
  pool.health = 'ONLINE';
  await checkStorage(deps);
  await followed();
  t.same(await incidents('?state=open'), []);
  t.equal(await followTimeline(ta.sql), 0, 'nothing left to read');
});

t.test('agents read incidents; only the owner changes them', async (t) => {
  const agent = await createAgent(ta, { name: 'ops', tier: 'owner' });
  const list = await ta.asAgent(agent.token, { method: 'GET', url: '/api/incidents?limit=2' });
  t.equal(list.statusCode, 200);
  t.match(list.json(), { limit: 2, offset: 0 });
  t.ok(list.json().total >= 3);
  const [first] = list.json().items;
  const one = await ta.asAgent(agent.token, { method: 'GET', url: `/api/incidents/${first.id}` });
  t.equal(one.statusCode, 200);
  const change = await ta.asAgent(agent.token, {
    method: 'PATCH',
    url: `/api/incidents/${first.id}`,
    payload: { title: 'mine' },
  });
  t.equal(change.statusCode, 403);
  const bad = await ta.asOwner({ method: 'GET', url: '/api/incidents?state=closed' });
  t.equal(bad.statusCode, 400);
});
