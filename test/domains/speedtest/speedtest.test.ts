import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { speedtestCron } from '../../../domains/speedtest/jobs.ts';
import { measure } from '../../../domains/speedtest/run.ts';
import { runDueItems } from '../../../worker/cron.ts';
import { createAgent, type TestApp, testApp } from '../../helpers/app.ts';
import { processAlive, repoRoot, until } from '../../helpers/process.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const fake = path.join(repoRoot, 'test', 'fixtures', 'fake-speedtest.ts');
const command = (mode: string) => `"${process.execPath}" "${fake}" ${mode}`;
const config = (mode: string, timeoutMs = 20_000) => ({
  speedtest: { command: command(mode), timeoutMs },
});

t.test('both Ookla CLI versions and speedtest-cli are read, in Mbps and ms', async (t) => {
  const v10 = await measure(config('ookla-1.0'));
  t.match(v10.measurement, {
    format: 'ookla',
    download_mbps: 93.75, // 11,718,750 bytes/s × 8 / 1e6
    upload_mbps: 20,
    ping_ms: 9.871,
    jitter_ms: 0.412,
    packet_loss_pct: 0,
    server_id: '12345',
    server_name: 'Example Net',
    server_location: 'Lisbon, Portugal',
    server_host: 'speedtest.example.net',
    isp: 'Example Fibre',
    result_url: 'https://www.speedtest.net/result/c/a1b2c3d4-0000-4000-8000-000000000001',
    bytes_sent: 24985600,
    bytes_received: 117966336,
  });
  const stamped = v10.measurement?.measured_at?.getTime() ?? 0;
  t.ok(Math.abs(Date.now() - stamped) < 60_000, 'measured_at is the time the runner stamped');

  const v12 = await measure(config('ookla-1.2'));
  t.match(v12.measurement, {
    download_mbps: 500,
    upload_mbps: 40,
    ping_ms: 12.5,
    jitter_ms: 1.25,
    packet_loss_pct: 0.5,
  });

  const noLoss = await measure(config('ookla-no-loss'));
  t.equal(noLoss.measurement?.packet_loss_pct, null, 'a figure the runner did not give is null, never 0');

  const cli = await measure(config('cli'));
  t.match(cli.measurement, {
    format: 'speedtest-cli',
    download_mbps: 93.459, // bits per second / 1e6
    upload_mbps: 11.975,
    ping_ms: 15.204,
    jitter_ms: null,
    packet_loss_pct: null,
    server_id: '4321',
    server_name: 'Example Telecom',
    server_location: 'Lisbon, Portugal',
    isp: 'Example ISP',
    result_url: null,
    bytes_sent: 15204352,
    bytes_received: 117211680,
  });
});

t.test('a result URL other than http or https is not stored', async (t) => {
  const run = await measure(config('hostile-url'));
  t.equal(run.measurement?.result_url, null, 'javascript: is dropped');
  t.equal(run.measurement?.download_mbps, 93.75, 'the rest of the result is kept');
});

t.test('errors on stderr: a result on stdout still counts; without one the error is kept', async (t) => {
  const both = await measure(config('error-with-result'));
  t.equal(both.error, null);
  t.equal(both.measurement?.download_mbps, 93.75);
  t.match(both.raw, /Failed to get latency/, 'the raw output keeps stderr too');

  const failed = await measure(config('error'));
  t.equal(failed.measurement, null);
  t.match(failed.error, /Could not retrieve or read configuration.*exit status 2/);

  const missing = await measure({
    speedtest: { command: '/nonexistent/speedtest --format=json', timeoutMs: 5000 },
  });
  t.match(missing.error, /program not found: \/nonexistent\/speedtest/);
});

t.test('a hanging program is killed with its process group after the timeout', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'speedtest-hang-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const pidFile = path.join(dir, 'pid');
  const started = Date.now();
  // Long enough for the program to start and write its pid on a busy machine: the timeout must cut a running one.
  const run = await measure(config(`hang ${pidFile}`, 5000));
  t.ok(Date.now() - started < 30_000, 'it did not wait for the program');
  t.match(run.error, /took longer than 5000 ms/);
  const pid = Number(await readFile(pidFile, 'utf8'));
  for (let i = 0; i < 50 && processAlive(pid); i++) await sleep(20);
  t.notOk(processAlive(pid), 'the program is gone');
});

async function settle(ta: TestApp, jobId: string) {
  for (let i = 0; i < 300; i++) {
    const [row] = await ta.sql<{ state: string }[]>`select state from job_records where id = ${jobId}`;
    if (row && (row.state === 'completed' || row.state === 'failed')) return row.state;
    await sleep(50);
  }
  throw new Error(`job ${jobId} did not finish`);
}

t.test(
  'runs through the job: rows, thresholds, one run under 50 concurrent requests, history and CSV',
  async (t) => {
    const ta = await testApp(t, { worker: true, env: { SPEEDTEST_COMMAND: command('ookla-1.0') } });
    const settings = await ta.asOwner({ method: 'GET', url: '/api/speedtest/settings' });
    t.equal(settings.statusCode, 200);
    const minute = Number(settings.json().schedule.split(' ')[0]);
    t.ok(minute >= 1 && minute <= 59, `hourly at a minute other than :00 (${minute})`);
    t.match(settings.json(), { enabled: true, low_download_mbps: null, low_upload_mbps: null });
    t.same(
      (await ta.asOwner({ method: 'GET', url: '/api/speedtest/settings' })).json(),
      settings.json(),
      'stored once',
    );

    const put = await ta.asOwner({
      method: 'PUT',
      url: '/api/speedtest/settings',
      payload: { ...(settings.json() as object), low_download_mbps: 100, low_upload_mbps: 5 },
    });
    t.equal(put.statusCode, 200);

    // Fifty requests at once start one run; the others answer its job.
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => ta.asOwner({ method: 'POST', url: '/api/speedtest/run' })),
    );
    t.ok(answers.every((answer) => answer.statusCode === 202));
    const jobIds = new Set(answers.map((answer) => answer.json().job_id));
    t.equal(jobIds.size, 1, 'one run');
    t.equal(answers.filter((answer) => !answer.json().already_running).length, 1);
    const [jobId] = jobIds;
    t.equal(await settle(ta, jobId), 'completed');
    const [{ runs }] = await ta.sql<{ runs: number }[]>`select count(*)::int as runs from speedtest_results`;
    t.equal(runs, 1);

    const latest = await ta.asOwner({ method: 'GET', url: '/api/speedtest/latest' });
    t.match(latest.json(), {
      status: 'ok',
      download_mbps: 93.75,
      trigger: 'manual',
      below_threshold: true,
      job_id: jobId,
    });
    const agent = await createAgent(ta, { tier: 'read' });
    t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/speedtest/latest' })).statusCode, 200);
    t.equal((await ta.asAgent(agent.token, { method: 'POST', url: '/api/speedtest/run' })).statusCode, 403);
    t.equal((await ta.anon({ method: 'POST', url: '/api/speedtest/run' })).statusCode, 401);

    // A new run once the first has finished; then history with a summary.
    const second = await ta.asOwner({ method: 'POST', url: '/api/speedtest/run' });
    t.equal(second.json().already_running, false);
    await settle(ta, second.json().job_id);
    await ta.sql`
    insert into speedtest_results (trigger, status, measured_at, download_mbps, upload_mbps, ping_ms, error)
    values ('schedule', 'failed', now() - interval '2 hours', null, null, null, 'timed out'),
           ('schedule', 'ok', now() - interval '3 hours', 300, 30, 8, null),
           ('schedule', 'ok', now() - interval '3 days', 10, 1, 80, null)`;
    const history = await ta.asOwner({
      method: 'GET',
      url: `/api/speedtest/history?since=${new Date(Date.now() - 86_400_000).toISOString()}`,
    });
    t.equal(history.statusCode, 200);
    const body = history.json();
    t.equal(body.items.length, 4, 'the last day only');
    t.ok(
      body.items.every((item: { measured_at: string }, i: number, all: { measured_at: string }[]) =>
        i === 0 ? true : all[i - 1].measured_at >= item.measured_at,
      ),
      'newest first',
    );
    t.match(body.summary, {
      count: 4,
      failures: 1,
      below_threshold: 2,
      download_mbps: { min: 93.75, median: 93.75, max: 300 },
      ping_ms: { min: 8, max: 9.871 },
    });
    const limited = await ta.asOwner({ method: 'GET', url: '/api/speedtest/history?limit=2' });
    t.equal(limited.json().items.length, 2);

    const csv = await ta.asOwner({ method: 'GET', url: '/api/speedtest/history.csv' });
    t.equal(csv.statusCode, 200);
    t.match(csv.headers['content-type'], /^text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    t.equal(lines[0].split(',')[0], 'measured_at');
    t.equal(lines.length, 1 + 5);
    t.ok(lines.some((line) => line.includes(',failed,') && line.endsWith(',timed out')));
    t.equal(
      (await ta.asOwner({ method: 'GET', url: '/api/speedtest/history?since=yesterday' })).statusCode,
      400,
    );
  },
);

t.test(
  'settings: an invalid cron is 400; a changed schedule is followed at once, disabled stops it',
  async (t) => {
    const ta = await testApp(t);
    const base = { enabled: true, low_download_mbps: null, low_upload_mbps: null };
    for (const schedule of ['every hour', '61 * * * *', '* * * *']) {
      const bad = await ta.asOwner({
        method: 'PUT',
        url: '/api/speedtest/settings',
        payload: { ...base, schedule },
      });
      t.equal(bad.statusCode, 400, schedule);
      t.equal(bad.json().code, 'INVALID_SCHEDULE');
    }
    const deps = { sql: ta.sql, config: ta.config };
    const items = speedtestCron(deps);
    const log = { error: () => undefined, info: () => undefined };
    const at = (hh: number, mm: number) => new Date(2026, 10, 22, hh, mm, 0);
    const scheduled = async () =>
      (
        await ta.sql<{ n: number }[]>`select count(*)::int as n from job_records where task = 'speedtest.run'`
      )[0].n;

    await ta.asOwner({
      method: 'PUT',
      url: '/api/speedtest/settings',
      payload: { ...base, schedule: '7 * * * *' },
    });
    t.same(await runDueItems(deps, items, at(10, 6), log), []);
    t.same(await runDueItems(deps, items, at(10, 7), log), ['speedtest']);
    t.same(await runDueItems(deps, items, at(10, 7), log), ['speedtest'], 'the same minute again');
    t.equal(await scheduled(), 1, 'one run per minute however often the tick sees it');

    await ta.asOwner({
      method: 'PUT',
      url: '/api/speedtest/settings',
      payload: { ...base, schedule: '*/15 * * * *' },
    });
    t.same(await runDueItems(deps, items, at(11, 7), log), [], 'the old schedule no longer applies');
    t.same(
      await runDueItems(deps, items, at(11, 15), log),
      ['speedtest'],
      'the new one does, without a restart',
    );

    await ta.asOwner({
      method: 'PUT',
      url: '/api/speedtest/settings',
      payload: { ...base, enabled: false, schedule: '*/15 * * * *' },
    });
    t.same(await runDueItems(deps, items, at(11, 30), log), [], 'disabled: no scheduled run');
    const manual = await ta.asOwner({ method: 'POST', url: '/api/speedtest/run' });
    t.equal(manual.statusCode, 202, 'a manual run still works');
  },
);

t.test('a result below a threshold is alerted, here to ALERT_URL in ntfy’s form', async (t) => {
  const ntfy = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"abc","event":"message"}');
  });
  const ta = await testApp(t, {
    worker: true,
    env: {
      SPEEDTEST_COMMAND: command('ookla-1.0'),
      ALERT_URL: `${ntfy.url}/homelab`,
      ALERT_FORMAT: 'ntfy',
    },
  });
  await ta.asOwner({
    method: 'PUT',
    url: '/api/speedtest/settings',
    payload: { enabled: true, schedule: '7 * * * *', low_download_mbps: 500, low_upload_mbps: null },
  });
  const run = await ta.asOwner({ method: 'POST', url: '/api/speedtest/run' });
  await settle(ta, run.json().job_id);
  const deliveries = async () =>
    (await ta.asOwner({ method: 'GET', url: '/api/alerts/deliveries' })).json().items as { status: string }[];
  await until('the alert delivered', async () =>
    (await deliveries()).some((delivery) => delivery.status === 'sent') ? true : undefined,
  );
  t.equal(ntfy.requests.length, 1, 'one alert');
  const [alert] = ntfy.requests;
  t.equal(alert.url, '/homelab');
  t.equal(alert.headers.title, 'Internet speed below threshold');
  t.equal(alert.headers.tags, 'warning,speedtest');
  t.match(alert.body, /Download 93\.8 Mbps, upload 20 Mbps.*expected at least download 500 Mbps/);

  // Above the threshold: no alert.
  await ta.asOwner({
    method: 'PUT',
    url: '/api/speedtest/settings',
    payload: { enabled: true, schedule: '7 * * * *', low_download_mbps: 50, low_upload_mbps: null },
  });
  const fine = await ta.asOwner({ method: 'POST', url: '/api/speedtest/run' });
  await settle(ta, fine.json().job_id);
  t.equal((await deliveries()).length, 1, 'nothing more raised');
  t.equal(ntfy.requests.length, 1, 'nothing more sent');
});
