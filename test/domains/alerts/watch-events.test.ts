// Events raised by watching things over time, each through its domain's own path and sent to a real receiver on
// ALERT_URL by the app's worker: a watched device absent from scans (device.offline) and back (device.online); the
// Proxmox storage roll-up turning WATCH, ATTENTION and HEALTHY again; a job the worker gives up (job.failed); the
// host's memory and disk over their thresholds for a while (host.threshold) and back (host.normal). Time is moved by
// backdating rows.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { scanDevices } from '../../../domains/devices/jobs.ts';
import { hostCheckTask } from '../../../domains/host/schema.ts';
import { checkStorage } from '../../../domains/proxmox/storage-watch.ts';
import { addJob, enqueue } from '../../../worker/enqueue.ts';
import { alertsDelivered, startAlertReceiver } from '../../helpers/alert-receiver.ts';
import { testApp } from '../../helpers/app.ts';
import { arpRow, fakeArpTable } from '../../helpers/arp.ts';
import { until } from '../../helpers/process.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-watch-events-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

// The device scan's neighbour table.
const table = await fakeArpTable(t);
const arp = table.write;

// The host's figures: a fake HOST_PROC.
const proc = path.join(dir, 'proc');
await mkdir(path.join(proc, 'net'), { recursive: true });
await writeFile(path.join(proc, 'stat'), 'cpu  1000 0 100 8000 50 0 10 0 0 0\n');
const memory = (availableKb: number) =>
  writeFile(path.join(proc, 'meminfo'), `MemTotal:        8000000 kB\nMemAvailable:    ${availableKb} kB\n`);
await memory(6_000_000);

// Proxmox: one node with one pool whose fill and health the tests set.
const pool = { alloc: 50, health: 'ONLINE' };
const pve = await startUpstream(t, (request, response) => {
  const route = (request.url ?? '/').split('?')[0].replace(/^\/api2\/json/, '');
  const answers: Record<string, unknown> = {
    '/cluster/status': [{ type: 'node', id: 'node/pve1', name: 'pve1', online: 1, local: 1, nodeid: 0 }],
    '/cluster/resources': [],
    '/storage': [],
    '/nodes/pve1/disks/zfs': [
      {
        name: 'tank',
        size: 100,
        alloc: pool.alloc,
        free: 100 - pool.alloc,
        frag: 1,
        dedup: 1,
        health: pool.health,
      },
    ],
    '/nodes/pve1/lxc': [],
  };
  if (!(route in answers)) return response.writeHead(501).end('{"data":null}');
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ data: answers[route] }));
});

const receiver = await startAlertReceiver(t);
const ta = await testApp(t, {
  worker: true,
  env: {
    ALERT_URL: receiver.url,
    DEVICES_ARP_FILE: table.file,
    DEVICES_NEIGH_COMMAND: 'off',
    HOST_PROC: proc,
    HOST_SYS: path.join(dir, 'sys'),
    HOST_MOUNTS: dir,
    PVE_URL: pve.url,
    PVE_TOKEN: 'monitor@pve!hub=secret',
  },
  extraTasks: {
    'test.explode': async () => {
      throw new Error('the disk is full');
    },
  },
});
const deps = { sql: ta.sql, config: ta.config };

/** What the receiver got from `round`, after its deliveries were sent. */
async function sent(round: () => Promise<unknown>) {
  receiver.clear();
  await round();
  await alertsDelivered(ta.sql);
  return receiver.alerts();
}
const recorded = (event: string) =>
  ta.sql<
    {
      title: string;
      message: string;
      priority: number;
      link: string;
      data: Record<string, unknown>;
      resolved_at: Date | null;
    }[]
  >`
    select title, message, priority, link, data, resolved_at from alerts where event = ${event} order by created_at`;
async function setAlerts(value: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'PUT', url: '/api/settings/alerts', payload: { value } });
  if (response.statusCode !== 200) throw new Error(`the alerts setting was refused: ${response.body}`);
}

t.test(
  'a watched device absent for the set time: device.offline once; its return: device.online',
  async (t) => {
    const mac = 'b8:27:eb:00:00:01';
    const created = await ta.asOwner({
      method: 'POST',
      url: '/api/devices',
      payload: { mac, name: 'Printer' },
    });
    t.equal(created.statusCode, 201, created.body);
    t.equal(created.json().watch, false, 'not watched unless the owner says so');
    const other = 'b8:27:eb:00:00:02';
    await ta.asOwner({ method: 'POST', url: '/api/devices', payload: { mac: other, name: 'Unwatched' } });
    await ta.sql`update lan_devices set first_seen = now() - interval '1 hour'`;

    t.same(await sent(() => scanDevices(deps)), [], 'not watched: no alert however long it is away');
    const watched = await ta.asOwner({
      method: 'PATCH',
      url: `/api/devices/${mac}`,
      payload: { watch: true },
    });
    t.equal(watched.statusCode, 200, watched.body);
    t.match(watched.json(), { watch: true, owner_fields: [] }, 'watching is no owner-set field');

    // Seen now, then away for 5 minutes: under the 10-minute default.
    await arp([arpRow('192.168.1.20', mac)]);
    await scanDevices(deps);
    await arp([]);
    await scanDevices(deps);
    await ta.sql`update lan_devices set last_seen = now() - interval '5 minutes' where mac = ${mac}`;
    t.same(await sent(() => scanDevices(deps)), [], 'absent 5 minutes: not yet');

    await ta.sql`update lan_devices set last_seen = now() - interval '11 minutes' where mac = ${mac}`;
    const [offline, ...more] = await sent(() => scanDevices(deps));
    t.match(offline, { event: 'device.offline', title: 'Printer is offline', priority: 4, mac });
    t.same(more, []);
    const [row] = await recorded('device.offline');
    t.match(row, {
      link: '/devices',
      data: { mac, ip: '192.168.1.20' },
      message: /absent from scans for 10 min/,
    });
    t.same(await sent(() => scanDevices(deps)), [], 'still away: said once');

    await arp([arpRow('192.168.1.20', mac)]);
    const [back] = await sent(() => scanDevices(deps));
    t.match(back, { event: 'device.online', title: 'Printer is back online' });
    t.ok((await recorded('device.offline'))[0].resolved_at, 'the offline problem is resolved');

    // The owner's setting sets the time.
    await setAlerts({ web_url: null, device_offline_minutes: 60 });
    await arp([]);
    await ta.sql`update lan_devices set last_seen = now() - interval '30 minutes' where mac = ${mac}`;
    t.same(await sent(() => scanDevices(deps)), [], 'within the 60 minutes set');
    await setAlerts({ web_url: null });
  },
);

t.test('the storage roll-up: WATCH, then ATTENTION, each once, then HEALTHY resolves', async (t) => {
  pool.alloc = 50;
  t.same(await sent(() => checkStorage(deps)), [], 'healthy from the start: nothing');

  pool.alloc = 85;
  await sent(() => checkStorage(deps));
  const [watch] = await recorded('storage.watch');
  t.match(watch, {
    title: 'Storage to watch',
    priority: 3,
    message: /WATCH pool tank on pve1: 85% used \(watch at 80%\)/,
    data: { status: 'WATCH' },
  });
  await checkStorage(deps);
  t.equal((await recorded('storage.watch')).length, 1, 'still WATCH: once');

  pool.health = 'DEGRADED';
  const [attention] = await sent(() => checkStorage(deps));
  t.match(attention, { event: 'storage.attention', priority: 4, message: /health DEGRADED/ });
  t.same(await sent(() => checkStorage(deps)), [], 'still ATTENTION: once');

  pool.health = 'ONLINE';
  pool.alloc = 40;
  const [healthy] = await sent(() => checkStorage(deps));
  t.match(healthy, { event: 'storage.healthy', title: 'Storage is healthy again' });
  const open =
    await ta.sql`select event from alerts where subject = 'storage:proxmox' and resolved_at is null and not resolves`;
  t.same(open, [], 'no storage problem open');
});

t.test('a job given up raises job.failed; its rule sends it', async (t) => {
  const rule = await ta.asOwner({
    method: 'POST',
    url: '/api/alerts/rules',
    payload: { events: ['job.*'], targets: [] },
  });
  t.equal(rule.statusCode, 201, rule.body);
  receiver.clear();
  const job = await addJob(ta.sql, 'test.explode', {}, { maxAttempts: 2 });
  await until('the job to be given up', async () =>
    (await recorded('job.failed')).length > 0 ? true : undefined,
  );
  await alertsDelivered(ta.sql);
  const [failed] = await recorded('job.failed');
  t.match(failed, {
    title: 'Job test.explode failed',
    priority: 3,
    message: /given up after 2 of 2 attempts: the disk is full/,
    data: { job_id: job.id, task: 'test.explode', attempts: 2 },
  });
  t.match(receiver.alerts(), [{ event: 'job.failed' }]);
  await ta.asOwner({ method: 'DELETE', url: `/api/alerts/rules/${rule.json().id}` });
});

t.test(
  'host memory over its threshold for the set time: host.threshold once; back under: host.normal',
  async (t) => {
    const check = async () => {
      const job = await enqueue(ta.sql, hostCheckTask, {});
      await until('host.check to run', async () => {
        const [record] = await ta.sql`select state from job_records where id = ${job.id}`;
        return record?.state === 'completed' ? true : undefined;
      });
    };
    await setAlerts({ web_url: null, host_disk_percent: 100 });
    await memory(400_000); // 95% used
    t.same(await sent(check), [], 'over, but only just now');
    const [breach] = await ta.sql`select metric, value from host_threshold_breaches`;
    t.match(breach, { metric: 'memory', value: 95 });

    await ta.sql`update host_threshold_breaches set over_since = now() - interval '11 minutes'`;
    const [over, ...more] = await sent(check);
    t.match(over, { event: 'host.threshold', title: 'Memory of the host at 95%', priority: 4 });
    t.same(more, []);
    t.match((await recorded('host.threshold'))[0], { data: { metric: 'memory', value: 95, threshold: 90 } });
    t.same(await sent(check), [], 'still over: said once');

    await memory(6_000_000);
    const [normal] = await sent(check);
    t.match(normal, { event: 'host.normal', title: 'Memory of the host back to 25%' });
    t.same(await ta.sql`select metric from host_threshold_breaches`, [], 'nothing over any more');

    // A disk over its (owner-set) threshold counts alike.
    await setAlerts({ web_url: null, host_disk_percent: 1, host_minutes: 1 });
    await check();
    await ta.sql`update host_threshold_breaches set over_since = now() - interval '2 minutes'`;
    const [disk] = await sent(check);
    t.match(disk, { event: 'host.threshold', title: new RegExp(`^Disk ${dir} of the host at`) });
  },
);
