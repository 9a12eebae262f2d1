// Events raised where their sources are: a service going down and back up (with the outage's length), a new device
// on the network (vendor and address) and a known device at another address. Each is recorded with its link and
// data in the same transaction as what caused it.
import t from 'tap';
import { scanDevices } from '../../../domains/devices/jobs.ts';
import { checkServices } from '../../../domains/health/jobs.ts';
import { testApp } from '../../helpers/app.ts';
import { arpRow, fakeArpTable } from '../../helpers/arp.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const table = await fakeArpTable(t);
const arp = table.write;

const ta = await testApp(t, { env: { DEVICES_ARP_FILE: table.file, DEVICES_NEIGH_COMMAND: 'off' } });
const deps = { sql: ta.sql, config: ta.config };

interface AlertRow {
  event: string;
  title: string;
  message: string;
  priority: number;
  link: string | null;
  data: Record<string, unknown>;
  subject: string | null;
  resolves: boolean;
  resolved_at: Date | null;
}
const alerts = (event: string) =>
  ta.sql<AlertRow[]>`
    select event, title, message, priority, link, data, subject, resolves, resolved_at from alerts
    where event = ${event} order by created_at`;

t.test('device.new with vendor and address; device.ip_changed when a known device moves', async (t) => {
  const raspberry = 'b8:27:eb:12:34:56';
  await arp([arpRow('192.168.1.10', raspberry)]);
  await scanDevices(deps);
  const [found] = await alerts('device.new');
  t.match(found, {
    title: /New device on the network/,
    message: /b8:27:eb:12:34:56 at 192\.168\.1\.10 \(Raspberry Pi/,
    link: '/devices',
    data: { mac: raspberry, ip: '192.168.1.10', vendor: /Raspberry Pi/ },
  });

  await scanDevices(deps);
  t.equal((await alerts('device.new')).length, 1, 'seen again: not new');
  t.equal((await alerts('device.ip_changed')).length, 0, 'same address: nothing');

  await arp([arpRow('192.168.1.44', raspberry)]);
  await scanDevices(deps);
  const [moved] = await alerts('device.ip_changed');
  t.match(moved, {
    message: /moved from 192\.168\.1\.10 to 192\.168\.1\.44/,
    data: { mac: raspberry, ip: '192.168.1.44', previous_ip: '192.168.1.10' },
  });
});

t.test('service.down opens a problem; service.up resolves it and says how long it lasted', async (t) => {
  let healthy = false;
  const web = await startUpstream(t, (_request, response) => {
    response.writeHead(healthy ? 200 : 503).end('nas');
  });
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'NAS', kind: 'http', url: `${web.url}/`, category: 'Lab' },
  });
  const service = created.json() as { id: string };
  await checkServices(deps, { ids: [service.id] });
  const [down] = await alerts('service.down');
  t.match(down, {
    title: 'NAS is down',
    priority: 4,
    link: '/services',
    subject: `service:${service.id}`,
    data: { service_id: service.id, category: 'Lab', state: 'down' },
    resolved_at: null,
  });
  const [queued] = await ta.sql`select count(*)::int as n from alert_deliveries`;
  t.equal(queued.n, 0, 'no target configured: recorded, sent nowhere');

  // Back up after an outage that began ten minutes ago.
  await ta.sql`update monitored_services set since = now() - interval '10 minutes' where id = ${service.id}`;
  await ta.sql`
    update health_events set at = now() - interval '10 minutes' where service_id = ${service.id} and to_state = 'down'`;
  healthy = true;
  await checkServices(deps, { ids: [service.id] });
  const [up] = await alerts('service.up');
  t.match(up, { title: 'NAS is back up', message: /up again after 10 min down/, resolves: true });
  t.ok(Number(up.data.outage_seconds) >= 600, 'the outage in seconds');
  const [closed] = await alerts('service.down');
  t.ok(closed.resolved_at, 'the down is resolved by the up');
});
