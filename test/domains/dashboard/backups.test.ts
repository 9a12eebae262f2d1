// Backup runs: ingest (validated, owner only), the card summary, and staleness judged by an injected clock.
import t from 'tap';
import { lastExpectedRun, staleness } from '../../../domains/backups/staleness.ts';
import { createAgent, testApp } from '../../helpers/app.ts';

// Local time, as schedules are read in the hub's time zone.
const local = (day: number, hour: number, minute = 0) => new Date(2026, 10, day, hour, minute);
let clock = local(22, 12);
const now = () => clock;

const run = (overrides: Record<string, unknown> = {}) => ({
  started_at: local(22, 2).toISOString(),
  finished_at: local(22, 2, 30).toISOString(),
  status: 'ok',
  target: { name: 'pbs-datastore', free_bytes: 600_000_000_000, total_bytes: 1_000_000_000_000 },
  guests: [
    { vmid: 100, name: 'web', size_bytes: 12_000_000_000, status: 'ok', duration_s: 310.5 },
    { vmid: 101, name: 'dns', size_bytes: 800_000_000, status: 'ok', duration_s: 22 },
  ],
  schedule: '0 2 * * *',
  ...overrides,
});

t.test('ingest, summary and staleness by the schedule', async (t) => {
  const ta = await testApp(t, { now });
  const empty = await ta.asOwner({ method: 'GET', url: '/api/backups' });
  t.equal(empty.statusCode, 200);
  t.match(empty.json(), {
    last_run: null,
    runs: [],
    stale: true,
    stale_reason: 'no successful run recorded',
  });

  const created = await ta.asOwner({ method: 'POST', url: '/api/backups', payload: run() });
  t.equal(created.statusCode, 201, created.body);
  t.match(created.json(), { status: 'ok', schedule: '0 2 * * *', target: { name: 'pbs-datastore' } });

  const summary = (await ta.asOwner({ method: 'GET', url: '/api/backups' })).json();
  t.match(summary, {
    last_run: { id: created.json().id, status: 'ok' },
    target: { free_bytes: 600_000_000_000, total_bytes: 1_000_000_000_000 },
    schedule: '0 2 * * *',
    stale: false,
    stale_reason: null,
  });
  t.same(
    summary.guests.map((guest: { vmid: number; size_bytes: number }) => [guest.vmid, guest.size_bytes]),
    [
      [100, 12_000_000_000],
      [101, 800_000_000],
    ],
  );
  t.equal(summary.last_success_at, local(22, 2, 30).toISOString());

  clock = local(23, 7, 59);
  t.equal(
    (await ta.asOwner({ method: 'GET', url: '/api/backups' })).json().stale,
    false,
    'within the grace of the next run',
  );
  clock = local(23, 8, 1);
  const late = (await ta.asOwner({ method: 'GET', url: '/api/backups' })).json();
  t.equal(late.stale, true, 'six hours after a missed run');
  t.match(late.stale_reason, /no successful run since the run expected at/);
  t.equal(late.expected_since, local(23, 2).toISOString());

  const failed = await ta.asOwner({
    method: 'POST',
    url: '/api/backups',
    payload: run({
      started_at: local(23, 2).toISOString(),
      finished_at: local(23, 2, 20).toISOString(),
      status: 'failed',
    }),
  });
  t.equal(failed.statusCode, 201);
  const stillStale = (await ta.asOwner({ method: 'GET', url: '/api/backups' })).json();
  t.equal(stillStale.last_run.status, 'failed');
  t.equal(stillStale.stale, true, 'a failed run does not count');
  await ta.asOwner({
    method: 'POST',
    url: '/api/backups',
    payload: run({ started_at: local(23, 8).toISOString(), finished_at: local(23, 8, 30).toISOString() }),
  });
  clock = local(23, 9);
  t.equal(
    (await ta.asOwner({ method: 'GET', url: '/api/backups' })).json().stale,
    false,
    'a late success makes it fresh',
  );

  // The last 30 runs only.
  for (let i = 0; i < 30; i++) {
    await ta.asOwner({
      method: 'POST',
      url: '/api/backups',
      payload: run({
        started_at: local(1, 0, i).toISOString(),
        finished_at: local(1, 0, i + 1).toISOString(),
      }),
    });
  }
  const many = (await ta.asOwner({ method: 'GET', url: '/api/backups' })).json();
  t.equal(many.runs.length, 30);
  t.equal(many.last_run.finished_at, local(23, 8, 30).toISOString(), 'newest first by finish time');
});

t.test('validation: a clear 400 naming the field; owner only for ingest', async (t) => {
  const ta = await testApp(t, { now });
  const cases: [Record<string, unknown>, RegExp][] = [
    [run({ status: 'great' }), /status/],
    [run({ schedule: 'every night' }), /schedule.*5 fields/],
    [run({ schedule: '61 2 * * *' }), /schedule/],
    [run({ finished_at: local(21, 0).toISOString() }), /finished_at is before started_at/],
    [run({ target: { name: 't', free_bytes: 10, total_bytes: 5 } }), /free_bytes/],
    [run({ guests: [{ vmid: 0, name: 'x', size_bytes: 1, status: 'ok', duration_s: 1 }] }), /vmid/],
    [run({ started_at: 'yesterday' }), /started_at/],
    [run({ guests: undefined }), /guests/],
  ];
  for (const [payload, message] of cases) {
    const response = await ta.asOwner({ method: 'POST', url: '/api/backups', payload });
    t.equal(response.statusCode, 400, JSON.stringify(payload).slice(0, 80));
    t.match(response.json().message, message);
  }
  t.equal((await ta.sql`select 1 from backup_runs`).length, 0, 'nothing was stored');

  const agent = await createAgent(ta, { tier: 'owner' });
  t.equal(
    (await ta.asAgent(agent.token, { method: 'POST', url: '/api/backups', payload: run() })).statusCode,
    403,
  );
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/backups' })).statusCode, 200);
  t.equal((await ta.anon({ method: 'POST', url: '/api/backups', payload: run() })).statusCode, 401);
});

t.test('staleness rules without a database', async (t) => {
  t.same(lastExpectedRun('0 2 * * 0', local(25, 12)), local(22, 2), 'a weekly Sunday 02:00 schedule');
  const unscheduled = (lastSuccess: Date | null, at: Date) => staleness(lastSuccess, null, at).stale;
  t.equal(unscheduled(local(20, 12), local(22, 11, 59)), false, 'within 48 h');
  t.equal(unscheduled(local(20, 12), local(22, 12, 1)), true, 'past 48 h');
  t.equal(unscheduled(null, local(22, 12)), true);
  t.equal(
    staleness(local(22, 2, 30), '0 2 * * *', local(23, 3), { graceHours: 1, unscheduledHours: 48 }).stale,
    true,
    'a shorter grace from the dashboard setting',
  );
});

t.test(
  "the card shows the hub's own backups, stale once the run their schedule expected has not succeeded",
  async (t) => {
    const ta = await testApp(t, { now });
    const [{ installed }] = await ta.sql<{ installed: Date }[]>`
    select min(applied_at) as installed from schema_migrations`;
    const day = (offset: number, hour: number, minute = 0) =>
      new Date(installed.getFullYear(), installed.getMonth(), installed.getDate() + offset, hour, minute);
    const setting = (value: Record<string, unknown>) =>
      ta.asOwner({
        method: 'PUT',
        url: '/api/settings/hub_backup',
        payload: { value: { enabled: true, schedule: '0 2 * * *', keep_daily: 7, keep_weekly: 4, ...value } },
      });
    t.equal((await setting({})).statusCode, 200);
    const hub = async () => (await ta.asOwner({ method: 'GET', url: '/api/backups' })).json().hub;

    clock = new Date(installed.getTime() + 60_000);
    t.match(
      await hub(),
      { runs: [], last_success_at: null, schedule: '0 2 * * *', stale: false, stale_reason: null },
      'no run was expected since the hub was set up',
    );

    clock = day(3, 12);
    const missed = await hub();
    t.equal(missed.stale, true, 'the run expected at 02:00 has had its six hours');
    t.match(missed.stale_reason, /no successful run since the run expected at/);

    const record = (state: string, at: Date, size: number | null) => ta.sql`
    insert into hub_backup_runs (started_at, finished_at, state, trigger, file_name, size_bytes, duration_ms, error)
    values (${at}, ${new Date(at.getTime() + 2000)}, ${state}, 'schedule', ${size === null ? null : 'a.zip'},
            ${size}, 2000, ${state === 'failed' ? 'disk full' : null})`;
    await record('failed', day(3, 2), null);
    t.equal((await hub()).stale, true, 'a failed run does not count');
    await record('succeeded', day(3, 7), 123_456);
    const fresh = await hub();
    t.equal(fresh.stale, false, 'a late success makes it fresh');
    t.same(fresh.runs, [
      {
        started_at: day(3, 7).toISOString(),
        finished_at: new Date(day(3, 7).getTime() + 2000).toISOString(),
        state: 'succeeded',
        size_bytes: 123_456,
        duration_ms: 2000,
      },
      {
        started_at: day(3, 2).toISOString(),
        finished_at: new Date(day(3, 2).getTime() + 2000).toISOString(),
        state: 'failed',
        size_bytes: null,
        duration_ms: 2000,
      },
    ]);
    t.equal(fresh.last_success_at, new Date(day(3, 7).getTime() + 2000).toISOString());

    clock = day(5, 12);
    t.equal((await hub()).stale, true, 'two days on, stale again');
    t.equal((await setting({ enabled: false })).statusCode, 200);
    t.match(await hub(), { stale: false, schedule: null }, 'backups turned off are not missed');
  },
);
