// The LAN device inventory: MAC forms, vendors from the offline registry, scans from fixture neighbour tables
// (/proc/net/arp text, `ip -j neigh` JSON from a real executable), DHCP leases and a fake scan command, owner edits
// surviving re-scans, the band list, review, access and the recurring scan.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { devicesCron, scanDevices } from '../../../domains/devices/jobs.ts';
import { isLocallyAdministered, normaliseMac, vendorOf } from '../../../domains/devices/mac.ts';
import { parseIpNeigh, parseProcArp } from '../../../domains/devices/scan.ts';
import { runDueItems } from '../../../worker/cron.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { svg, uploadSet, zip } from '../icons/helpers.ts';

const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-devices-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const arpFile = path.join(dir, 'arp');
const neighJson = path.join(dir, 'neigh.json');
const neighCommand = path.join(dir, 'fake-ip');
const leasesFile = path.join(dir, 'dnsmasq.leases');
const scanOutput = path.join(dir, 'scan.txt');
const scanCommand = path.join(dir, 'fake-arp-scan');

const arpHeader = 'IP address       HW type     Flags       HW address            Mask     Device\n';
async function writeArp(rows: string[]) {
  await writeFile(arpFile, arpHeader + rows.map((row) => `${row}\n`).join(''));
}
// Real executables standing in for `ip -j neigh` and `arp-scan --localnet --plain`: they print the fixture files.
await writeFile(neighCommand, `#!/bin/sh\n[ "$1 $2" = "-j neigh" ] || exit 3\nexec cat "${neighJson}"\n`);
await writeFile(scanCommand, `#!/bin/sh\nexec cat "${scanOutput}"\n`);
await chmod(neighCommand, 0o755);
await chmod(scanCommand, 0o755);

const raspberry = 'b8:27:eb:12:34:56';
const phone = 'da:a1:19:00:00:01'; // locally administered: a phone's private address
const converging = '00:1b:c5:00:0a:bc'; // MA-S block 001BC5000 inside the registry's own 001BC5

await writeArp([
  `192.168.1.10     0x1         0x2         ${raspberry.toUpperCase()}     *        eth0`,
  `192.168.1.11     0x1         0x2         ${phone}     *        eth0`,
  '192.168.1.12     0x1         0x0         00:00:00:00:00:00     *        eth0',
  '192.168.1.13     0x1         0x0         11:22:33:44:55:66     *        eth0',
]);
await writeFile(
  neighJson,
  JSON.stringify([
    { dst: '192.168.1.20', dev: 'eth0', lladdr: converging, state: ['REACHABLE'] },
    { dst: '192.168.1.21', dev: 'eth0', state: ['FAILED'] },
    { dst: '192.168.1.22', dev: 'eth0', state: ['INCOMPLETE'] },
    { dst: '192.168.1.23', dev: 'eth0', lladdr: '22:33:44:55:66:77', state: ['FAILED'] },
    { dst: 'fe80::1', dev: 'eth0', lladdr: raspberry, router: true, state: ['STALE'] },
    { dst: '192.168.1.255', dev: 'eth0', lladdr: 'ff:ff:ff:ff:ff:ff', state: ['NOARP'] },
  ]),
);
await writeFile(
  scanOutput,
  'Interface: eth0\n192.168.1.30\t00-11-22-33-44-55\tSome Maker Inc.\n\nEnding arp-scan\n',
);
await writeFile(
  leasesFile,
  `1900000000 ${raspberry} 192.168.1.10 octopi 01:${raspberry}\n1900000000 ${phone} 192.168.1.11 * *\n`,
);

const ta = await testApp(t, {
  env: {
    DEVICES_ARP_FILE: arpFile,
    DEVICES_NEIGH_COMMAND: `${neighCommand} -j neigh`,
    DHCP_LEASES_FILE: leasesFile,
    DEVICES_SCAN_COMMAND: scanCommand,
  },
});
const deps = { sql: ta.sql, config: ta.config };
const get = async (mac: string) => (await ta.asOwner({ method: 'GET', url: `/api/devices/${mac}` })).json();

t.test('MAC forms normalise to lowercase with colons; anything else is refused', async (t) => {
  for (const form of ['AA-BB-CC-DD-EE-FF', 'aabb.ccdd.eeff', 'AABBCCDDEEFF', 'aA:bB:cC:dD:eE:fF']) {
    t.equal(normaliseMac(form), 'aa:bb:cc:dd:ee:ff', form);
  }
  for (const bad of ['aa:bb:cc:dd:ee', 'aa:bb-cc:dd:ee:ff', 'gg:bb:cc:dd:ee:ff', 'aabb.ccdd.eef', '']) {
    t.equal(normaliseMac(bad), null, `"${bad}"`);
  }
  t.ok(isLocallyAdministered(phone));
  t.notOk(isLocallyAdministered(raspberry));
  t.equal(await vendorOf(raspberry), 'Raspberry Pi Foundation');
  t.equal(
    await vendorOf(converging),
    'Converging Systems Inc.',
    'the 9-digit block wins over its 6-digit parent',
  );
  t.equal(await vendorOf(phone), null, 'a random address has no vendor');
  const bad = await ta.asOwner({ method: 'POST', url: '/api/devices', payload: { mac: 'not-a-mac' } });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().code, 'INVALID_MAC');
  t.match(bad.json().message, /mac "not-a-mac"/);
});

t.test('fixture parsers skip incomplete entries', async (t) => {
  t.same(
    parseProcArp(
      `${arpHeader}10.0.0.1 0x1 0x2 AA:BB:CC:00:00:01 * eth0\n10.0.0.2 0x1 0x0 00:00:00:00:00:00 * eth0\n`,
    ),
    [{ mac: 'aa:bb:cc:00:00:01', ip: '10.0.0.1' }],
  );
  t.same(
    parseIpNeigh(
      '[{"dst":"10.0.0.3","state":["FAILED"]},{"dst":"10.0.0.4","lladdr":"aa:bb:cc:00:00:02","state":["STALE"]}]',
    ),
    [{ mac: 'aa:bb:cc:00:00:02', ip: '10.0.0.4' }],
  );
});

t.test('a manual add is known and absent; a MAC that exists is 409', async (t) => {
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/devices',
    payload: { mac: 'B8-27-EB-12-34-56', ip: '192.168.1.99', name: 'Printer Pi' },
  });
  t.equal(created.statusCode, 201);
  t.match(created.json(), {
    mac: raspberry,
    status: 'known',
    present: false,
    name: 'Printer Pi',
    ip: '192.168.1.99',
    vendor: 'Raspberry Pi Foundation',
    random_mac: false,
  });
  t.same(created.json().owner_fields.sort(), ['ip', 'name']);
  const again = await ta.asOwner({ method: 'POST', url: '/api/devices', payload: { mac: 'b827eb123456' } });
  t.equal(again.statusCode, 409);
  t.equal(again.json().code, 'DEVICE_EXISTS');
});

t.test(
  'a scan reads every source, skips incomplete entries and never overwrites what the owner set',
  async (t) => {
    const accepted = await ta.asOwner({ method: 'POST', url: '/api/devices/scan' });
    t.equal(accepted.statusCode, 202);
    const [record] = await ta.sql`select task from job_records where id = ${accepted.json().job_id}`;
    t.equal(record.task, 'devices.scan');

    const result = await scanDevices(deps);
    t.equal(result.seen, 4, 'the pi, the phone, the neighbour-table device and the scan command device');
    const macs = (await ta.sql`select mac from lan_devices order by mac`).map((row) => row.mac);
    t.same(macs, ['00:11:22:33:44:55', converging, raspberry, phone]);

    const pi = await get(raspberry);
    t.match(pi, {
      status: 'known',
      present: true,
      name: 'Printer Pi',
      ip: '192.168.1.99',
      hostname: 'octopi',
    });
    t.ok(pi.last_seen, 'last seen is set');
    t.match(await get(phone), {
      status: 'new',
      present: true,
      random_mac: true,
      vendor: null,
      ip: '192.168.1.11',
    });
    t.match(await get(converging), { status: 'new', vendor: 'Converging Systems Inc.', ip: '192.168.1.20' });
    t.match(await get('00:11:22:33:44:55'), { ip: '192.168.1.30', status: 'new' });

    // The owner names the phone, gives it an icon and fixes its address; the next scan sees it elsewhere.
    const patched = await ta.asOwner({
      method: 'PATCH',
      url: `/api/devices/${phone.toUpperCase()}`,
      payload: {
        name: 'Ana phone',
        icon: 'brand:apple',
        notes: 'private MAC',
        type: 'phone',
        location: 'hall',
        ip: '192.168.1.111',
      },
    });
    t.equal(patched.statusCode, 200);
    t.equal(patched.json().icon_url, '/api/icons/apple.png');
    await writeArp([
      `192.168.1.50     0x1         0x2         ${phone}     *        eth0`,
      `192.168.1.51     0x1         0x2         ${raspberry}     *        eth0`,
    ]);
    await writeFile(neighJson, '[]');
    await writeFile(scanOutput, '');
    const second = await scanDevices(deps);
    t.equal(second.absent, 2, 'devices not seen any more become absent');
    t.match(await get(phone), {
      name: 'Ana phone',
      icon: 'brand:apple',
      notes: 'private MAC',
      type: 'phone',
      location: 'hall',
      ip: '192.168.1.111',
      present: true,
    });
    t.match(await get(raspberry), { ip: '192.168.1.99', name: 'Printer Pi', present: true });
    t.match(await get(converging), { present: false, ip: '192.168.1.20' });
  },
);

t.test('a configured source that fails changes nothing', async (t) => {
  const broken = await testApp(t, {
    env: {
      DEVICES_ARP_FILE: arpFile,
      DEVICES_NEIGH_COMMAND: 'off',
      DEVICES_SCAN_COMMAND: path.join(dir, 'missing'),
    },
  });
  await t.rejects(scanDevices({ sql: broken.sql, config: broken.config }), /not found/);
  const [{ count }] = await broken.sql`select count(*)::int from lan_devices`;
  t.equal(count, 0);
});

t.test('the band list: new first, filters, search across fields', async (t) => {
  const list = (await ta.asOwner({ method: 'GET', url: '/api/devices' })).json();
  t.equal(list.total, 4);
  t.same(
    list.items.map((item: { status: string }) => item.status),
    ['new', 'new', 'new', 'known'],
    'a patch names a device without reviewing it',
  );
  t.same(
    list.items.map((item: { mac: string }) => item.mac),
    [phone, converging, '00:11:22:33:44:55', raspberry],
    'within a band by name (or host name), then IP',
  );
  const byVendor = (await ta.asOwner({ method: 'GET', url: '/api/devices?q=RASPBERRY' })).json();
  t.same(
    byVendor.items.map((item: { mac: string }) => item.mac),
    [raspberry],
  );
  const byIp = (await ta.asOwner({ method: 'GET', url: '/api/devices?q=192.168.1.30' })).json();
  t.equal(byIp.total, 1);
  const absent = (await ta.asOwner({ method: 'GET', url: '/api/devices?present=false' })).json();
  t.same(absent.items.map((item: { mac: string }) => item.mac).sort(), ['00:11:22:33:44:55', converging]);
  const known = (await ta.asOwner({ method: 'GET', url: '/api/devices?status=known&limit=1' })).json();
  t.match(known, { total: 1, limit: 1, offset: 0 });
});

t.test('review: accept or ignore a new device', async (t) => {
  const waiting = (await ta.asOwner({ method: 'GET', url: '/api/devices/discovered' })).json();
  t.same(waiting.items.map((item: { mac: string }) => item.mac).sort(), [
    '00:11:22:33:44:55',
    converging,
    phone,
  ]);
  // An iconRef must name an icon that exists.
  await ta.asOwner(uploadSet('home', await zip([{ name: 'blinds.svg', bytes: svg() }])));
  const accepted = await ta.asOwner({
    method: 'PATCH',
    url: `/api/devices/discovered/${converging}`,
    payload: {
      action: 'accept',
      name: 'Blinds controller',
      icon: 'set:home:blinds',
      location: 'living room',
    },
  });
  t.equal(accepted.statusCode, 200);
  t.match(accepted.json(), {
    status: 'known',
    name: 'Blinds controller',
    icon_url: '/api/icon-sets/home/blinds.svg',
  });
  const ignored = await ta.asOwner({
    method: 'PATCH',
    url: '/api/devices/discovered/001122334455',
    payload: { action: 'ignore' },
  });
  t.equal(ignored.json().status, 'ignored');
  const twice = await ta.asOwner({
    method: 'PATCH',
    url: '/api/devices/discovered/001122334455',
    payload: { action: 'accept' },
  });
  t.equal(twice.statusCode, 409);
  t.equal(twice.json().code, 'DEVICE_NOT_NEW');
  const list = (await ta.asOwner({ method: 'GET', url: '/api/devices' })).json();
  t.equal(list.items.at(-1).status, 'ignored', 'ignored devices come last');
});

t.test('patch: icon must be an iconRef or null; status known or ignored', async (t) => {
  for (const icon of ['apple', 'brand:', 'set:only', 'http://x/y.png']) {
    const bad = await ta.asOwner({ method: 'PATCH', url: `/api/devices/${phone}`, payload: { icon } });
    t.equal(bad.statusCode, 400, icon);
  }
  const cleared = await ta.asOwner({
    method: 'PATCH',
    url: `/api/devices/${phone}`,
    payload: { icon: null },
  });
  t.match(cleared.json(), { icon: null, icon_url: null });
  const newAgain = await ta.asOwner({
    method: 'PATCH',
    url: `/api/devices/${phone}`,
    payload: { status: 'new' },
  });
  t.equal(newAgain.statusCode, 400);
  const missing = await ta.asOwner({
    method: 'PATCH',
    url: '/api/devices/02:00:00:00:00:09',
    payload: { name: 'x' },
  });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'DEVICE_NOT_FOUND');
});

t.test('access: reads for agents, writes for the owner, 401 without credentials', async (t) => {
  const agent = await createAgent(ta, { tier: 'owner' });
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/devices' })).statusCode, 200);
  const write = await ta.asAgent(agent.token, {
    method: 'PATCH',
    url: `/api/devices/${phone}`,
    payload: { name: 'x' },
  });
  t.equal(write.statusCode, 403);
  t.equal(write.json().code, 'OWNER_ONLY');
  t.equal((await ta.anon({ method: 'POST', url: '/api/devices/scan' })).statusCode, 401);
  t.equal((await ta.anon({ method: 'GET', url: '/api/devices' })).statusCode, 401);
});

t.test('delete', async (t) => {
  t.equal((await ta.asOwner({ method: 'DELETE', url: '/api/devices/001122334455' })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'DELETE', url: '/api/devices/001122334455' })).statusCode, 404);
});

t.test('the scan recurs through the cron registry on DEVICES_SCAN_SCHEDULE', async (t) => {
  const items = devicesCron(deps);
  t.same(
    items.map((item) => item.schedule),
    ['*/5 * * * *'],
  );
  const log = { info: () => undefined, error: (message: string) => t.fail(message) };
  t.same(await runDueItems(deps, items, new Date('2026-03-01T10:07:00'), log), []);
  t.same(await runDueItems(deps, items, new Date('2026-03-01T10:10:00'), log), ['devices.scan']);
  const [row] =
    await ta.sql`select count(*)::int as count from job_records where task = 'devices.scan' and job_key like 'cron:%'`;
  t.equal(row.count, 1);
});
