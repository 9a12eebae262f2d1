// The Proxmox cards against a fake Proxmox VE API on loopback: cluster and storage shapes, the roll-up, the
// inventory merge, caching, and the failure rules (403 token, unreachable, hanging, stale cache), plus TLS with
// PVE_CA_FILE against a self-signed certificate.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { testApp } from '../../helpers/app.ts';
import { closedPort, fakeProxmox, hangingUpstream, json, pveToken } from './fakes.ts';

let clock = Date.parse('2026-11-22T12:00:00Z');
const now = () => new Date(clock);
const seconds = (n: number) => {
  clock += n * 1000;
};

t.test('not configured: { configured: false } for both cards', async (t) => {
  const ta = await testApp(t);
  for (const url of ['/api/cluster', '/api/storage']) {
    const response = await ta.asOwner({ method: 'GET', url });
    t.equal(response.statusCode, 200);
    t.same(response.json(), { configured: false });
  }
});

t.test('cluster and storage from the real API shapes, cached PVE_CACHE_SECONDS', async (t) => {
  const pve = await fakeProxmox(t);
  const ta = await testApp(t, { env: { PVE_URL: pve.url, PVE_TOKEN: pveToken }, now });
  await ta.asOwner({
    method: 'POST',
    url: '/api/network-hosts',
    payload: { hostname: 'PVE1', role: 'hypervisor' },
  });
  await ta.asOwner({
    method: 'POST',
    url: '/api/network-hosts',
    payload: { hostname: 'nas', ip: '10.0.0.12', role: 'storage' },
  });
  await ta.asOwner({
    method: 'POST',
    url: '/api/network-hosts',
    payload: { hostname: 'dns', role: 'resolver' },
  });

  const response = await ta.asOwner({ method: 'GET', url: '/api/cluster' });
  t.equal(response.statusCode, 200, response.body);
  t.equal(pve.requests[0].headers.authorization, `PVEAPIToken=${pveToken}`, 'the token header');
  const cluster = response.json();
  t.match(cluster, { configured: true, cluster: { name: 'homelab', quorate: true, nodes: 2 }, warnings: [] });
  t.match(cluster.nodes, [
    {
      name: 'pve1',
      online: true,
      ip: '10.0.0.11',
      cpu_percent: 5.1,
      cpus: 8,
      memory: { percent: 37.5 },
      uptime_seconds: 864000,
      load: [0.42, 0.35, 0.3],
      inventory: { hostname: 'PVE1', role: 'hypervisor' },
    },
    { name: 'pve2', online: false, cpu_percent: null, load: null, inventory: { hostname: 'nas' } },
  ]);
  t.match(cluster.guests, { total: 3, qemu: 1, lxc: 2, by_status: { running: 2, stopped: 1 } });
  t.same(
    cluster.guests.items.map((guest: { vmid: number }) => guest.vmid),
    [100, 101, 102],
    'the template is left out; qemu and lxc both listed',
  );
  t.match(cluster.guests.items[0], { name: 'web', type: 'qemu', status: 'running', cpu_percent: 25 });
  t.match(cluster.guests.items[1], { name: 'dns', type: 'lxc', inventory: { role: 'resolver' } });
  t.match(cluster.guests.items[2], { name: 'old', status: 'stopped', cpu_percent: null });
  t.equal(pve.calls('/nodes/pve2/status'), 0, 'an offline node is not asked');

  const storage = (await ta.asOwner({ method: 'GET', url: '/api/storage' })).json();
  t.equal(storage.status, 'ATTENTION');
  t.same(
    storage.pools.map((pool: { name: string; health: string; percent: number }) => [
      pool.name,
      pool.health,
      pool.percent,
    ]),
    [
      ['rpool', 'ONLINE', 50],
      ['tank', 'DEGRADED', 91],
    ],
  );
  t.same(
    storage.dropped_storages,
    [
      { storage: 'local-zfs', node: 'pve1', pool: 'rpool' },
      { storage: 'local-zfs', node: 'pve2', pool: 'rpool' },
    ],
    'pool-type storages are dropped: one repeats a listed pool, the other sits on a node that is offline',
  );
  t.same(
    storage.storages.map((s: { storage: string; percent: number }) => [s.storage, s.percent]),
    [
      ['backup-nfs', 85],
      ['local', 45],
    ],
  );
  t.match(storage.containers, [
    { vmid: 101, name: 'dns', status: 'running', percent: 37.5, fill: 'known' },
    { vmid: 102, name: 'old', status: 'stopped', percent: null, used_bytes: null, fill: 'unknown' },
  ]);
  t.same(
    storage.reasons.map(
      (r: { level: string; subject: string; finding: string }) => `${r.level} ${r.subject}: ${r.finding}`,
    ),
    [
      'ATTENTION pool tank on pve1: health DEGRADED',
      'ATTENTION pool tank on pve1: 91% used (attention at 90%)',
      'WATCH pool tank on pve1: 55% fragmented (watch at 50%)',
      'WATCH storage backup-nfs on pve1: 85% used (watch at 80%)',
    ],
  );
  t.equal(pve.calls('/nodes/pve2/disks/zfs'), 0, 'only online nodes are asked for pools');

  const before = pve.calls('/cluster/status');
  await ta.asOwner({ method: 'GET', url: '/api/cluster' });
  await ta.asOwner({ method: 'GET', url: '/api/storage' });
  t.equal(pve.calls('/cluster/status'), before, 'within PVE_CACHE_SECONDS both come from the cache');
  seconds(31);
  await ta.asOwner({ method: 'GET', url: '/api/cluster' });
  t.equal(pve.calls('/cluster/status'), before + 1, 'after it, Proxmox is asked again');

  // Thresholds are the owner's to change (the dashboard setting over the environment).
  const set = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/dashboard',
    payload: { value: { storage_watch_percent: 95, storage_attention_percent: 99 } },
  });
  t.equal(set.statusCode, 200, set.body);
  seconds(31);
  const relaxed = (await ta.asOwner({ method: 'GET', url: '/api/storage' })).json();
  t.same(
    relaxed.reasons.map((r: { finding: string }) => r.finding),
    ['health DEGRADED', '55% fragmented (watch at 50%)'],
  );
  t.match(relaxed.thresholds, { watch_percent: 95, attention_percent: 99 });

  // Proxmox going away: the cached value, marked stale with its age.
  pve.mode = 'forbidden';
  seconds(45);
  const stale = await ta.asOwner({ method: 'GET', url: '/api/cluster' });
  t.equal(stale.statusCode, 200);
  t.match(stale.json(), { stale: true, age_seconds: 76, cluster: { name: 'homelab' } });
});

t.test(
  'a single node without a cluster; an empty answer is reported as a possible permission problem',
  async (t) => {
    const pve = await fakeProxmox(t);
    pve.mode = 'single';
    const ta = await testApp(t, { env: { PVE_URL: pve.url, PVE_TOKEN: pveToken }, now });
    const single = (await ta.asOwner({ method: 'GET', url: '/api/cluster' })).json();
    t.equal(single.cluster, null);
    t.match(single.nodes, [{ name: 'pve1', online: true }]);
    t.equal(single.nodes.length, 1);
    const storage = await ta.asOwner({ method: 'GET', url: '/api/storage' });
    t.equal(storage.statusCode, 200);

    const pve2 = await fakeProxmox(t);
    pve2.mode = 'empty';
    const empty = await testApp(t, { env: { PVE_URL: pve2.url, PVE_TOKEN: pveToken }, now });
    const body = (await empty.asOwner({ method: 'GET', url: '/api/cluster' })).json();
    t.match(body.warnings[0], /PVEAuditor/);
  },
);

t.test(
  'failures: a refused token names PVEAuditor; unreachable and hanging are 502 with what happened',
  async (t) => {
    const pve = await fakeProxmox(t);
    pve.mode = 'forbidden';
    const ta = await testApp(t, { env: { PVE_URL: pve.url, PVE_TOKEN: pveToken }, now });
    for (const url of ['/api/cluster', '/api/storage']) {
      const response = await ta.asOwner({ method: 'GET', url });
      t.equal(response.statusCode, 502, `${url}: never Proxmox's 403 as ours`);
      t.match(response.json(), {
        code: 'PROXMOX_TOKEN_REFUSED',
        message: /PVEAuditor/,
        upstream: { status: 403 },
      });
    }
    const wrong = await testApp(t, {
      env: { PVE_URL: pve.url, PVE_TOKEN: 'monitor@pve!dashboard=wrong-secret' },
      now,
    });
    const unauthorized = await wrong.asOwner({ method: 'GET', url: '/api/cluster' });
    t.equal(unauthorized.statusCode, 502, "Proxmox's 401 is not the hub's 401");
    t.match(unauthorized.json(), { code: 'PROXMOX_TOKEN_REFUSED', upstream: { status: 401 } });

    const port = await closedPort();
    const down = await testApp(t, { env: { PVE_URL: `http://127.0.0.1:${port}`, PVE_TOKEN: pveToken }, now });
    const refused = await down.asOwner({ method: 'GET', url: '/api/cluster' });
    t.equal(refused.statusCode, 502);
    t.match(refused.json(), {
      code: 'PROXMOX_UPSTREAM_FAILED',
      message: /connection refused/,
      upstream: { status: null },
    });

    const hanging = await hangingUpstream(t);
    const slow = await testApp(t, {
      env: { PVE_URL: hanging.url, PVE_TOKEN: pveToken, UPSTREAM_TIMEOUT_MS: '250' },
      now,
    });
    const timedOut = await slow.asOwner({ method: 'GET', url: '/api/storage' });
    t.equal(timedOut.statusCode, 502);
    t.match(timedOut.json(), { code: 'PROXMOX_UPSTREAM_FAILED', message: /no answer within 250 ms/ });
  },
);

t.test(
  'TLS: a self-signed certificate is refused unless PVE_CA_FILE names it (or PVE_TLS_INSECURE)',
  async (t) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-pve-tls-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const server = https.createServer(
      { key: await readFile(key), cert: await readFile(cert) },
      (_request, response) =>
        json(response, 200, {
          data: [{ type: 'node', id: 'node/pve1', name: 'pve1', online: 1, ip: '127.0.0.1' }],
        }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const strict = await testApp(t, { env: { PVE_URL: url, PVE_TOKEN: pveToken }, now });
    const refused = await strict.asOwner({ method: 'GET', url: '/api/cluster' });
    t.equal(refused.statusCode, 502);
    t.match(refused.json().message, /certificate/i);

    const trusted = await testApp(t, { env: { PVE_URL: url, PVE_TOKEN: pveToken, PVE_CA_FILE: cert }, now });
    const ok = await trusted.asOwner({ method: 'GET', url: '/api/cluster' });
    t.equal(ok.statusCode, 200, ok.body);
    t.match(ok.json().nodes, [{ name: 'pve1', online: true }]);

    const insecure = await testApp(t, {
      env: { PVE_URL: url, PVE_TOKEN: pveToken, PVE_TLS_INSECURE: '1' },
      now,
    });
    t.equal((await insecure.asOwner({ method: 'GET', url: '/api/cluster' })).statusCode, 200);
  },
);
