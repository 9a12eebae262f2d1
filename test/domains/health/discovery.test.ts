// LAN discovery over 127.0.0.0/29 only, against servers on 127.0.0.2–127.0.0.6: a Proxmox-like login page, a bare
// TCP port, a Home Assistant-like page, a curated service that must stay as it is, and a page nobody knows. Then the
// device-name match, promote and dismiss, and the ranges refused at start.
import http from 'node:http';
import net from 'node:net';
import t from 'tap';
import { loadConfig } from '../../../config/index.ts';
import { addressesOf } from '../../../domains/health/discovery.ts';
import { discoverLan } from '../../../domains/health/jobs.ts';
import { testApp } from '../../helpers/app.ts';

function listen(server: http.Server | net.Server, host: string, port: number) {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

function page(title: string, server: string): http.Server {
  return http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', server });
    response.end(`<!doctype html><html><head><title>${title}</title></head><body>login</body></html>`);
  });
}

const proxmox = page('pve1 - Proxmox Virtual Environment', 'pve-api-daemon/3.0');
// A bare TCP service: accepts, says nothing, hangs up.
const bare = net.createServer((socket) => socket.destroy());
const assistant = page('Home Assistant', 'Python/3.12 aiohttp/3.9');
const curated = page('Curated thing', 'nginx');
const unknown = page('Router &amp; Friends', 'lighttpd');
const port = await listen(proxmox, '127.0.0.2', 0);
await listen(bare, '127.0.0.3', port);
await listen(assistant, '127.0.0.4', port);
await listen(curated, '127.0.0.5', port);
await listen(unknown, '127.0.0.6', port);
t.teardown(async () => {
  for (const server of [proxmox, assistant, curated, unknown]) server.closeAllConnections();
  await Promise.all([proxmox, bare, assistant, curated, unknown].map((s) => new Promise((r) => s.close(r))));
});

const ta = await testApp(t, {
  env: { DISCOVERY_CIDRS: '127.0.0.0/29', DISCOVERY_PORTS: String(port), DISCOVERY_TIMEOUT_MS: '500' },
});
const deps = { sql: ta.sql, config: ta.config };
const candidates = async () =>
  (await ta.asOwner({ method: 'GET', url: '/api/health/discovered' })).json().items;

t.test('ranges: only the configured one is swept; larger than a /16 is refused at start', async (t) => {
  t.same(addressesOf(['127.0.0.0/29']), [
    '127.0.0.1',
    '127.0.0.2',
    '127.0.0.3',
    '127.0.0.4',
    '127.0.0.5',
    '127.0.0.6',
  ]);
  const linkLocal = addressesOf(['169.254.169.0/24']);
  t.equal(linkLocal.length, 253, 'a range holding the cloud metadata address is swept without it');
  t.notOk(linkLocal.includes('169.254.169.254'), 'the cloud metadata address is never swept');
  t.throws(
    () => loadConfig({ DISCOVERY_CIDRS: '10.0.0.0/15' }),
    /DISCOVERY_CIDRS range 10.0.0.0\/15 is larger than a \/16/,
  );
  t.throws(() => loadConfig({ DISCOVERY_CIDRS: 'fd00::/64' }), /DISCOVERY_CIDRS only IPv4/);
  t.throws(() => loadConfig({ DISCOVERY_PORTS: '80,http' }), /DISCOVERY_PORTS/);
  t.same(loadConfig({ DISCOVERY_CIDRS: '192.168.1.77/24' }).discovery.cidrs, ['192.168.1.0/24']);
  t.equal(loadConfig({}).discovery.ports.length, 20);
});

t.test('a sweep proposes candidates, recognises services and leaves curated entries alone', async (t) => {
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: {
      name: 'My curated',
      kind: 'http',
      url: `http://127.0.0.5:${port}/`,
      category: 'Mine',
      enabled: false,
    },
  });
  t.equal(created.statusCode, 201);
  await ta.asOwner({
    method: 'POST',
    url: '/api/devices',
    payload: { mac: 'aa:bb:cc:00:00:04', ip: '127.0.0.4', name: 'Home server' },
  });
  const accepted = await ta.asOwner({ method: 'POST', url: '/api/health/discover' });
  t.equal(accepted.statusCode, 202);
  t.equal(accepted.json().task, 'discover.lan');

  const counts = await discoverLan(deps);
  t.match(counts, { addresses: 6, open: 5, added: 4, skipped: 1 });
  const items = await candidates();
  t.same(
    items.map((item: { host: string }) => item.host),
    ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.6'],
    'nothing outside 127.0.0.0/29, nothing over the curated entry',
  );
  const [pve, tcp, ha, other] = items;
  t.match(pve, {
    name: 'Proxmox VE',
    category: 'Infrastructure',
    icon: 'brand:proxmox',
    icon_url: '/api/icons/proxmox.png',
    kind: 'http',
    url: `http://127.0.0.2:${port}/`,
    enabled: false,
    discovered: true,
    device_name: null,
    display_name: `127.0.0.2:${port}`,
  });
  t.match(tcp, { kind: 'tcp', name: `Port ${port}`, target: `tcp://127.0.0.3:${port}`, enabled: false });
  t.match(ha, {
    name: 'Home Assistant',
    category: 'Home',
    icon: 'brand:homeassistant',
    device_name: 'Home server',
    display_name: `Home server:${port}`,
  });
  t.match(other, { name: 'Router & Friends', category: 'Discovered', icon: null });

  const mine = (await ta.asOwner({ method: 'GET', url: `/api/health/services/${created.json().id}` })).json();
  t.match(mine, { name: 'My curated', category: 'Mine', discovered: false, enabled: false });
  const registry = (await ta.asOwner({ method: 'GET', url: '/api/health/services' })).json();
  t.same(
    registry.groups.map((group: { category: string }) => group.category),
    ['Mine'],
    'candidates stay out of the registry',
  );
});

t.test(
  'promote and dismiss; later sweeps update candidates only and never propose a dismissed one',
  async (t) => {
    const [pve, tcp, ha] = await candidates();
    const promoted = await ta.asOwner({
      method: 'POST',
      url: `/api/health/discovered/${pve.id}/promote`,
      payload: { name: 'pve1', category: 'Cluster' },
    });
    t.equal(promoted.statusCode, 200);
    t.match(promoted.json(), {
      name: 'pve1',
      category: 'Cluster',
      enabled: true,
      discovered: false,
      icon: 'brand:proxmox',
    });
    t.equal(
      (await ta.asOwner({ method: 'POST', url: `/api/health/discovered/${pve.id}/promote` })).statusCode,
      404,
    );
    const dismissed = await ta.asOwner({ method: 'DELETE', url: `/api/health/discovered/${tcp.id}` });
    t.equal(dismissed.statusCode, 204);
    t.equal(
      (await ta.asOwner({ method: 'DELETE', url: `/api/health/discovered/${tcp.id}` })).json().code,
      'CANDIDATE_NOT_FOUND',
    );
    await ta.sql`update monitored_services set name = 'stale name' where id = ${ha.id}`;

    const counts = await discoverLan(deps);
    t.match(counts, { open: 5, added: 0, updated: 2, skipped: 3 });
    const items = await candidates();
    t.same(
      items.map((item: { host: string }) => item.host),
      ['127.0.0.4', '127.0.0.6'],
    );
    t.equal(items[0].name, 'Home Assistant', 'a candidate is refreshed');
    const kept = (await ta.asOwner({ method: 'GET', url: `/api/health/services/${pve.id}` })).json();
    t.match(
      kept,
      { name: 'pve1', category: 'Cluster', enabled: true },
      'a promoted service is curated from then on',
    );
  },
);

t.test('discovery writes are the owner’s', async (t) => {
  t.equal((await ta.anon({ method: 'POST', url: '/api/health/discover' })).statusCode, 401);
  t.equal((await ta.anon({ method: 'GET', url: '/api/health/discovered' })).statusCode, 401);
});
