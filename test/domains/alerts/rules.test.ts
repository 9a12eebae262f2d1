// Alert rules and deliveries: routing by event pattern and filter, quiet hours, repeats of an open problem and one
// recovery, a failing target retried without holding up another, a refusing one given up at once, the rules API.
import t from 'tap';
import { repeatOpenProblems } from '../../../domains/alerts/jobs.ts';
import { eventMatches, raiseAlert } from '../../../domains/alerts/raise.ts';
import { testApp } from '../../helpers/app.ts';
import { until } from '../../helpers/process.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import { startNtfy, startWebhookReceiver } from './receivers.ts';

const ntfy = await startNtfy(t);
const ta = await testApp(t, { worker: true });
const deps = { sql: ta.sql, config: ta.config };

async function post(url: string, payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode !== 201) throw new Error(`${url} refused: ${response.body}`);
  return response.json() as { id: string };
}
const topic = (name: string) =>
  post('/api/alerts/targets', { name, kind: 'ntfy', fields: { url: ntfy.url, topic: name } });

interface DeliveryItem {
  target_id: string | null;
  status: string;
  repeat: number;
  attempts: number;
  answer_status: number | null;
  answer: string | null;
}
async function deliveriesOf(alertId: string): Promise<DeliveryItem[]> {
  const response = await ta.asOwner({ method: 'GET', url: `/api/alerts/deliveries?alert_id=${alertId}` });
  return response.json().items;
}
const reached = async (alertId: string) =>
  (await deliveriesOf(alertId))
    .map((item) => `${item.target_id}:${item.status === 'quiet' ? 'quiet' : 'sent'}`)
    .sort();

const home = await topic('home');
const speed = await topic('speed');
const [defaultRule] = (await ta.asOwner({ method: 'GET', url: '/api/alerts/rules' })).json().items;
const serviceX = '11111111-1111-4111-8111-111111111111';

t.test('event patterns', async (t) => {
  t.ok(eventMatches('service.*', 'service.down'));
  t.ok(eventMatches('*', 'device.ip_changed'));
  t.ok(eventMatches('*.failed', 'backup.failed'));
  t.notOk(eventMatches('service.*', 'services.down'));
  t.notOk(eventMatches('device.new', 'device.newer'));
});

t.test('the rules API', async (t) => {
  t.match(defaultRule, { events: ['*'], filter: { min_priority: 4 }, targets: [], enabled: true });
  const absent = await ta.asOwner({
    method: 'POST',
    url: '/api/alerts/rules',
    payload: { events: ['*'], targets: ['00000000-0000-4000-8000-000000000000'] },
  });
  t.equal(absent.statusCode, 404);
  t.equal(absent.json().code, 'ALERT_TARGET_NOT_FOUND');
  const zone = await ta.asOwner({
    method: 'POST',
    url: '/api/alerts/rules',
    payload: {
      events: ['*'],
      targets: [],
      quiet_hours: { from: '22:00', to: '07:00', timezone: 'Mars/Olympus' },
    },
  });
  t.equal(zone.statusCode, 400);
  t.match(zone.json().message, /IANA time zone/);
  const pattern = await ta.asOwner({
    method: 'POST',
    url: '/api/alerts/rules',
    payload: { events: ['Service Down'], targets: [] },
  });
  t.equal(pattern.statusCode, 400);

  const rule = await post('/api/alerts/rules', { name: 'tmp', events: ['x.*'], targets: [home.id] });
  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/alerts/rules/${rule.id}`,
    payload: { repeat_minutes: 15, quiet_hours: { from: '23:00', to: '06:00', timezone: 'UTC' } },
  });
  t.match(patched.json(), {
    name: 'tmp',
    events: ['x.*'],
    repeat_minutes: 15,
    quiet_hours: { from: '23:00' },
  });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/alerts/rules/${rule.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/alerts/rules/${rule.id}` })).statusCode, 404);

  // A rule whose only target goes is disabled, not turned into "every target".
  const lone = await topic('lone');
  const loneRule = await post('/api/alerts/rules', { events: ['*'], targets: [lone.id] });
  await ta.asOwner({ method: 'DELETE', url: `/api/alerts/targets/${lone.id}` });
  t.match((await ta.asOwner({ method: 'GET', url: `/api/alerts/rules/${loneRule.id}` })).json(), {
    targets: [],
    enabled: false,
  });
  await ta.asOwner({ method: 'DELETE', url: `/api/alerts/rules/${loneRule.id}` });
});

t.test('the default rule: priority 4 and above to every target', async (t) => {
  const low = await raiseAlert(ta.sql, deps, {
    event: 'device.new',
    title: 'New device',
    message: 'm',
    priority: 3,
  });
  t.same(await reached(low.id), []);
  const high = await raiseAlert(ta.sql, deps, {
    event: 'device.new',
    title: 'New device',
    message: 'm',
    priority: 4,
  });
  t.same(await reached(high.id), [`${home.id}:sent`, `${speed.id}:sent`].sort());
});

t.test('rules route by event pattern and filter; quiet hours hold back all but the urgent', async (t) => {
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/alerts/rules/${defaultRule.id}`,
    payload: { enabled: false },
  });
  t.teardown(() =>
    ta.asOwner({ method: 'PATCH', url: `/api/alerts/rules/${defaultRule.id}`, payload: { enabled: true } }),
  );
  const rules = [
    await post('/api/alerts/rules', {
      events: ['service.*'],
      filter: { categories: ['Home'] },
      targets: [home.id],
    }),
    await post('/api/alerts/rules', {
      events: ['speedtest.slow'],
      filter: { min_priority: 4 },
      targets: [speed.id],
    }),
    await post('/api/alerts/rules', {
      events: ['service.down'],
      filter: { service_ids: [serviceX] },
      targets: [speed.id],
    }),
    await post('/api/alerts/rules', {
      events: ['device.*'],
      targets: [home.id],
      quiet_hours: { from: '22:00', to: '07:00', timezone: 'Europe/Berlin', except_priority_at_least: 5 },
    }),
  ];
  t.teardown(async () => {
    for (const rule of rules) await ta.asOwner({ method: 'DELETE', url: `/api/alerts/rules/${rule.id}` });
  });
  const raise = (event: string, priority: number, data: Record<string, unknown> = {}, at?: Date) =>
    raiseAlert(ta.sql, deps, { event, title: event, message: 'm', priority, data }, at);

  t.same(await reached((await raise('service.down', 4, { category: 'Home', service_id: 'a' })).id), [
    `${home.id}:sent`,
  ]);
  t.same(await reached((await raise('service.down', 4, { category: 'Office', service_id: 'b' })).id), []);
  t.same(
    await reached((await raise('service.down', 2, { category: 'Office', service_id: serviceX })).id),
    [`${speed.id}:sent`],
    'by service id',
  );
  t.same(await reached((await raise('speedtest.slow', 4)).id), [`${speed.id}:sent`]);
  t.same(await reached((await raise('speedtest.slow', 3)).id), [], 'under min_priority');

  // 23:30 in Berlin (summer, UTC+2) is inside 22:00-07:00; noon is not; priority 5 passes at any hour.
  const night = new Date('2026-06-01T21:30:00Z');
  const noon = new Date('2026-06-01T10:00:00Z');
  t.same(await reached((await raise('device.new', 3, {}, night)).id), [`${home.id}:quiet`]);
  t.same(await reached((await raise('device.new', 3, {}, noon)).id), [`${home.id}:sent`]);
  t.same(await reached((await raise('device.new', 5, {}, night)).id), [`${home.id}:sent`]);

  const held = await raise('device.offline', 3, {}, night);
  const [quiet] = (await deliveriesOf(held.id)) as (DeliveryItem & { id: string })[];
  const jobs =
    await ta.sql`select 1 from job_records where task = 'alerts.deliver' and payload->>'delivery_id' = ${quiet.id}`;
  t.equal(quiet.status, 'quiet');
  t.equal(jobs.length, 0, 'a held delivery has no job');
});

t.test(
  'an open problem repeats until it resolves; the recovery goes once, where the problem went',
  async (t) => {
    const repeats = await post('/api/alerts/rules', {
      events: ['service.down'],
      filter: { service_ids: ['22222222-2222-4222-8222-222222222222'] },
      targets: [home.id],
      repeat_minutes: 30,
    });
    t.teardown(() => ta.asOwner({ method: 'DELETE', url: `/api/alerts/rules/${repeats.id}` }));
    const subject = 'service:22222222-2222-4222-8222-222222222222';
    const data = { service_id: '22222222-2222-4222-8222-222222222222', category: 'Lab' };
    const down = await raiseAlert(ta.sql, deps, {
      event: 'service.down',
      title: 'NAS is down',
      message: 'm',
      priority: 3,
      subject,
      data,
    });
    t.same(await reached(down.id), [`${home.id}:sent`]);
    t.equal(await repeatOpenProblems(deps), 0, 'not due yet');
    const age = () =>
      ta.sql`update alert_deliveries set created_at = created_at - interval '31 minutes' where alert_id = ${down.id}`;
    await age();
    t.equal(await repeatOpenProblems(deps), 1, 'due after repeat_minutes');
    t.same((await deliveriesOf(down.id)).map((item) => item.repeat).sort(), [0, 1]);
    t.equal(await repeatOpenProblems(deps), 0, 'the repeat starts a new interval');

    const up = await raiseAlert(ta.sql, deps, {
      event: 'service.up',
      title: 'NAS is back up',
      message: 'm',
      priority: 3,
      subject,
      resolves: true,
      data,
    });
    t.same(
      await reached(up.id),
      [`${home.id}:sent`],
      'the recovery follows its problem (no rule names service.up)',
    );
    await age();
    t.equal(await repeatOpenProblems(deps), 0, 'a resolved problem never repeats');
    const [{ resolved_at }] = await ta.sql`select resolved_at from alerts where id = ${down.id}`;
    t.ok(resolved_at, 'the problem is marked resolved');
  },
);

t.test('a suppressed alert is recorded and sent nowhere', async (t) => {
  const raised = await raiseAlert(ta.sql, deps, {
    event: 'service.down',
    title: 'In maintenance',
    message: 'm',
    priority: 5,
    suppressed: 'maintenance',
  });
  t.equal(raised.queued, 0);
  t.same(await deliveriesOf(raised.id), []);
  const [row] = await ta.sql`select suppressed from alerts where id = ${raised.id}`;
  t.equal(row.suppressed, 'maintenance');
});

t.test(
  'a failing target is retried with backoff and does not delay another; a refusing one is given up',
  async (t) => {
    const secret = `whsec_${Buffer.from('retry test key').toString('base64')}`;
    const failing = await startWebhookReceiver(t, secret, { failFirst: 1 });
    const refusing = await startUpstream(t, (_request, response) => {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"topic invalid"}');
    });
    const flaky = await post('/api/alerts/targets', {
      name: 'Flaky',
      kind: 'webhook',
      fields: { url: failing.url, secret },
    });
    const broken = await post('/api/alerts/targets', {
      name: 'Broken',
      kind: 'ntfy',
      fields: { url: refusing.url, topic: 'x' },
    });
    const rule = await post('/api/alerts/rules', {
      events: ['backup.failed'],
      targets: [flaky.id, broken.id, home.id],
    });
    t.teardown(() => ta.asOwner({ method: 'DELETE', url: `/api/alerts/rules/${rule.id}` }));
    const raised = await raiseAlert(ta.sql, deps, {
      event: 'backup.failed',
      title: 'Backup failed',
      message: 'm',
    });

    const first = await until('the healthy target served', async () => {
      const items = await deliveriesOf(raised.id);
      return items.find((item) => item.target_id === home.id)?.status === 'sent' ? items : undefined;
    });
    const flakyFirst = first.find((item) => item.target_id === flaky.id);
    t.not(flakyFirst?.status, 'sent', 'the healthy target did not wait for the failing one');

    const settled = await until(
      'the failing target retried',
      async () => {
        const items = await deliveriesOf(raised.id);
        const retried = items.find((item) => item.target_id === flaky.id);
        return retried?.status === 'sent' ? items : undefined;
      },
      60_000,
    );
    t.match(
      settled.find((item) => item.target_id === flaky.id),
      { status: 'sent', attempts: 2, answer_status: 204 },
    );
    t.equal(failing.verified.length, 1);
    t.match(
      settled.find((item) => item.target_id === broken.id),
      {
        status: 'failed',
        attempts: 1,
        answer_status: 400,
        answer: /HTTP 400.*topic invalid/,
      },
    );
    t.equal(refusing.requests.length, 1, 'a 400 is not asked again');
  },
);
