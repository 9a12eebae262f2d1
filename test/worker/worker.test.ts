// The worker's contracts: a task's definition checks payloads on both sides (enqueue refuses a bad one; a bad one that
// got in anyway fails its job for good, with the reason in job_records), and the cron registry reads a schedule held
// in a setting afresh at every tick, so a changed setting applies without a restart.
import type { Job } from 'graphile-worker';
import t from 'tap';
import { Type } from 'typebox';
import { ingestUrlTask } from '../../domains/capture/schema.ts';
import { readSetting, writeSetting } from '../../domains/settings/registry.ts';
import { defineSetting } from '../../lib/settings.ts';
import type { CronItem, JobDeps } from '../../worker/contract.ts';
import { runDueItems } from '../../worker/cron.ts';
import { addJob, enqueue } from '../../worker/enqueue.ts';
import { testApp } from '../helpers/app.ts';

const payload = {
  capture_id: '00000000-0000-4000-8000-000000000001',
  url: 'https://example.org/',
  space_id: '00000000-0000-4000-8000-000000000002',
  title: null,
  origin: 'url' as const,
  captured_at: '2026-01-01T10:00:00.000Z',
};

t.test('enqueue refuses a payload that does not fit the task, naming the field', async (t) => {
  const ta = await testApp(t);
  const bad = { ...payload, url: 42 } as unknown as typeof payload;
  await t.rejects(enqueue(ta.sql, ingestUrlTask, bad), {
    name: 'TypeError',
    message: /ingest\.url payload: \/url/,
  });
  const [jobs] = await ta.sql`select count(*)::int as n from graphile_worker.jobs`;
  t.equal(jobs.n, 0, 'nothing was queued');
});

t.test(
  'a job of a declared task with an invalid payload fails for good, with the reason recorded',
  async (t) => {
    const ta = await testApp(t, { worker: true });
    const runner = ta.app.jobs.runner;
    if (!runner) throw new Error('the worker is not running');
    const failed = new Promise<Job>((resolve) => {
      // job:error: graphile-worker's own count still had attempts left; the record and the queue say it is over.
      runner.events.on('job:error', ({ job }) => resolve(job));
    });
    // addJob is the unchecked form: it lets the bad payload in, as an older version or a hand-made job might.
    const job = await addJob(ta.sql, 'ingest.url', { url: 'https://example.org/' }, { maxAttempts: 5 });
    const done = await failed;
    t.equal(String(done.id), job.id);
    const [record] = await ta.sql<{ state: string; attempts: number; last_error: string }[]>`
    select state, attempts, last_error from job_records where id = ${job.id}`;
    t.equal(record.state, 'failed', 'failed at the first attempt, not retried');
    t.equal(record.attempts, 1);
    t.match(record.last_error, /^invalid ingest\.url payload: /);
    const [queued] = await ta.sql<{ attempts: number; max_attempts: number }[]>`
    select attempts, max_attempts from graphile_worker.jobs where id = ${job.id}`;
    t.equal(queued?.attempts, queued?.max_attempts, 'no attempt is left in the queue: it will not run again');
    const response = await ta.asOwner({ method: 'GET', url: `/api/jobs/${job.id}` });
    t.match(response.json(), { state: 'failed', last_error: /invalid ingest\.url payload/ });
  },
);

t.test('a cron item scheduled by a setting follows the setting without a restart', async (t) => {
  const ta = await testApp(t);
  const deps: JobDeps = { sql: ta.sql, config: ta.config };
  const schedule = defineSetting({
    key: 'test.capture_schedule',
    schema: Type.Union([Type.String(), Type.Null()]),
    defaultValue: '0 * * * *',
    description: 'when the test item runs',
  });
  const items: CronItem[] = [
    {
      id: 'test.capture',
      task: ingestUrlTask,
      schedule: (d) => readSetting(d.sql, schedule),
      payload,
    },
  ];
  const errors: string[] = [];
  const log = { error: (message: string) => errors.push(message), info: () => undefined };
  const at = (hour: number, minute: number) => new Date(2026, 0, 1, hour, minute, 30);

  t.same(await runDueItems(deps, items, at(10, 0), log), ['test.capture'], 'the default: on the hour');
  t.same(await runDueItems(deps, items, at(10, 5), log), [], 'not at five past');
  t.same(
    await runDueItems(deps, items, at(10, 0), log),
    ['test.capture'],
    'a second tick of the same minute',
  );

  await writeSetting(ta.sql, schedule, '*/5 * * * *');
  t.same(
    await runDueItems(deps, items, at(10, 5), log),
    ['test.capture'],
    'the new schedule applies at once',
  );
  t.same(await runDueItems(deps, items, at(10, 7), log), []);
  await writeSetting(ta.sql, schedule, null);
  t.same(await runDueItems(deps, items, at(10, 10), log), [], 'null turns the item off');
  await writeSetting(ta.sql, schedule, 'every minute');
  t.same(await runDueItems(deps, items, at(10, 15), log), [], 'a bad expression is skipped');
  t.match(errors, [/test\.capture could not be started/]);

  const keys = await ta.sql<{ job_key: string }[]>`select job_key from job_records order by job_key`;
  t.same(
    keys.map((row) => row.job_key),
    [
      `cron:test.capture:${at(10, 0).toISOString().replace(':30.', ':00.')}`,
      `cron:test.capture:${at(10, 5).toISOString().replace(':30.', ':00.')}`,
    ],
    'one job per due minute: the second tick of 10:00 found the job already there',
  );
});
