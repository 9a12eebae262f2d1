// One alert per outage: a host resource with fifteen services on it goes down and back up; the alerts sent to a real
// HTTP receiver on ALERT_URL are one service.down naming the fifteen, then one service.up; the services' own state
// changes are recorded as suppressed by the host. A service depending on the host through the resource graph folds
// too, one still down after the host returns is alerted then, and a cycle in the graph ends the walk.
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { outageRoots } from '../../../domains/health/outage.ts';
import type { OutageService } from '../../../domains/health/store.ts';
import { alertsDelivered, startAlertReceiver, startFlakyServer } from '../../helpers/alert-receiver.ts';
import { testApp } from '../../helpers/app.ts';

const receiver = await startAlertReceiver(t);
const web = await startFlakyServer(t);
const ta = await testApp(t, { worker: true, env: { ALERT_URL: receiver.url } });
const deps = { sql: ta.sql, config: ta.config };

async function post(url: string, payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}
const resource = (name: string) => post('/api/resources', { name, kind: 'host' });
const service = (name: string, fields: Record<string, unknown>) =>
  post('/api/health/services', { name, kind: 'http', url: `${web.url}/${name}`, ...fields });

/** One round of checks of every service, and the alerts it raised. */
async function round() {
  receiver.clear();
  await checkServices(deps, {});
  await alertsDelivered(ta.sql);
  return receiver.alerts();
}

t.test('a host with fifteen services goes down: one alert naming fifteen, then one recovery', async (t) => {
  const pve = await resource('pve1');
  const host = await service('pve1-ui', { resource_id: pve.id, host_check: true });
  const apps = [];
  for (let n = 1; n <= 15; n++) apps.push(await service(`app${n}`, { resource_id: pve.id }));

  t.same(await round(), [], 'the first passes raise nothing');

  web.failing.add('*');
  const down = await round();
  t.equal(down.length, 1, 'exactly one alert for the outage');
  t.match(down[0], {
    event: 'service.down',
    title: 'pve1-ui is down (15 affected)',
    service_id: host.id,
    root: { service_id: host.id, resource_id: pve.id },
    affected_count: 15,
  });
  const affected = (down[0].affected as { service_id: string }[]).map((entry) => entry.service_id).sort();
  t.same(affected, apps.map((app) => app.id).sort(), 'the fifteen services on it');

  const events = (await ta.asOwner({ method: 'GET', url: '/api/health/events?limit=100' })).json().items;
  const downs = events.filter((event: { to_state: string }) => event.to_state === 'down');
  t.equal(downs.length, 16, 'every state change is recorded');
  t.same(
    downs.filter((event: { suppressed_by: string | null }) => event.suppressed_by === host.id).length,
    15,
    "the children's changes are suppressed by the root",
  );
  const app1 = (await ta.asOwner({ method: 'GET', url: `/api/health/services/${apps[0].id}` })).json();
  t.match(app1, { state: 'down', suppressed_by: host.id });
  const root = (await ta.asOwner({ method: 'GET', url: `/api/health/services/${host.id}` })).json();
  t.match(root, { state: 'down', suppressed_by: null });

  t.same(await round(), [], 'a second failing round raises nothing more');

  // The host returns, but one app does not.
  web.failing.clear();
  web.failing.add('/app7');
  const up = await round();
  t.equal(up.length, 2);
  const recovery = up.find((alert) => alert.event === 'service.up');
  t.match(recovery, { title: 'pve1-ui is back up', service_id: host.id, affected_count: 14 });
  t.type(recovery?.duration_s, 'number');
  const still = up.find((alert) => alert.event === 'service.down');
  t.match(still, { title: 'app7 is down', service_id: apps[6].id, affected_count: 0 });

  web.failing.clear();
  const last = await round();
  t.match(last, [{ event: 'service.up', service_id: apps[6].id }], 'app7 recovers on its own alert');
  t.same(await round(), []);
});

t.test('a service on a resource that depends on a host that is down folds into the host', async (t) => {
  const hv = await resource('hv');
  const host = await service('hv-ui', { resource_id: hv.id, host_check: true });
  const vm = await resource('vm-media');
  await post(`/api/resources/${vm.id}/dependencies`, { depends_on_id: hv.id });
  const vmHost = await service('vm-media-ssh', { resource_id: vm.id, host_check: true });
  const jellyfin = await service('jellyfin', { resource_id: vm.id });
  await round();
  for (const name of ['hv-ui', 'vm-media-ssh', 'jellyfin']) web.failing.add(`/${name}`);
  const alerts = await round();
  t.equal(alerts.length, 1);
  t.match(alerts[0], { service_id: host.id, affected_count: 2 });
  t.same(
    (alerts[0].affected as { service_id: string }[]).map((entry) => entry.service_id).sort(),
    [vmHost.id, jellyfin.id].sort(),
  );
  web.failing.clear();
  t.match(await round(), [{ event: 'service.up', service_id: host.id, affected_count: 2 }]);
});

t.test('a service whose host is up is alerted on its own', async (t) => {
  const nas = await resource('nas');
  await service('nas-ui', { resource_id: nas.id, host_check: true });
  const smb = await service('nas-smb', { resource_id: nas.id });
  await round();
  web.failing.add('/nas-smb');
  t.match(await round(), [{ event: 'service.down', service_id: smb.id, affected_count: 0 }]);
  web.failing.clear();
  t.match(await round(), [{ event: 'service.up', service_id: smb.id }]);
});

t.test('a cycle in the resource graph ends the walk and still folds into one alert', async (t) => {
  const a = await resource('cycle-a');
  const b = await resource('cycle-b');
  // The API refuses a cycle; one written before that check (or by hand) must still not loop.
  await ta.sql`insert into resource_dependencies (resource_id, depends_on_id)
    values (${a.id}, ${b.id}), (${b.id}, ${a.id})`;
  const hostA = await service('cycle-a-host', { resource_id: a.id, host_check: true });
  await service('cycle-b-host', { resource_id: b.id, host_check: true });
  await service('cycle-a-app', { resource_id: a.id });
  await service('cycle-b-app', { resource_id: b.id });
  await round();
  for (const name of ['cycle-a-host', 'cycle-b-host', 'cycle-a-app', 'cycle-b-app'])
    web.failing.add(`/${name}`);
  const alerts = await round();
  t.equal(alerts.length, 1, 'one alert for the two hosts that depend on each other');
  t.match(alerts[0], { service_id: hostA.id, affected_count: 3 });
  web.failing.clear();
  t.match(await round(), [{ event: 'service.up', service_id: hostA.id, affected_count: 3 }]);
});

t.test(
  'roots: each place once, the same root for a whole cycle, the topmost down place of a chain',
  async (t) => {
    const at = (id: string, fields: Partial<OutageService>): OutageService => ({
      id,
      name: id,
      category: 'c',
      state: 'down',
      enabled: true,
      resource_id: null,
      device_mac: null,
      host_check: false,
      down_alert: null,
      since: null,
      message: null,
      where: '',
      ...fields,
    });
    // r1 -> r2 -> r3 -> r1 (a cycle), r3 -> r4; hosts of r2 and r4 down, r3's up.
    const graph = new Map([
      ['r1', ['r2']],
      ['r2', ['r3']],
      ['r3', ['r1', 'r4']],
    ]);
    const services = [
      at('h2', { resource_id: 'r2', host_check: true }),
      at('h3', { resource_id: 'r3', host_check: true, state: 'up' }),
      at('h4', { resource_id: 'r4', host_check: true }),
      at('s1', { resource_id: 'r1' }),
      at('s3', { resource_id: 'r3' }),
      at('d1', { device_mac: 'aa:bb:cc:dd:ee:ff' }),
      at('d2', { device_mac: 'aa:bb:cc:dd:ee:ff', host_check: true }),
      at('lone', {}),
    ];
    const roots = outageRoots(services, graph);
    t.same(Object.fromEntries(roots), { h2: 'h4', s1: 'h4', s3: 'h4', d1: 'd2' });

    // A ring of down hosts: one root for all of them.
    const ring = new Map([
      ['x', ['y']],
      ['y', ['z']],
      ['z', ['x']],
    ]);
    const hosts = ['hx', 'hy', 'hz'].map((id) => at(id, { resource_id: id.slice(1), host_check: true }));
    t.same(Object.fromEntries(outageRoots(hosts, ring)), { hy: 'hx', hz: 'hx' });
  },
);
