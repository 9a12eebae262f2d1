// Jobs: enqueued in the caller's transaction, run by the in-process worker, deduplicated by job key.
import type { Socket } from 'node:net';
import type { Task } from 'graphile-worker';
import pino from 'pino';
import postgres from 'postgres';
import t from 'tap';
import { safeFetch } from '../../lib/safe-fetch.ts';
import { startWorker } from '../../plugins/jobs.ts';
import { addJob } from '../../worker/enqueue.ts';
import { testApp, testDatabase } from '../helpers/app.ts';
import { until } from '../helpers/process.ts';
import { startUpstream } from '../helpers/upstream.ts';

/** Writes the payload's note to test_job_records, so a test sees the job ran and with which payload. */
const record: Task = async (payload, helpers) => {
  await helpers.query('insert into test_job_records (note) values ($1)', [
    (payload as { note?: string }).note,
  ]);
};

t.test('a job enqueued in a transaction exists exactly when the transaction commits', async (t) => {
  const ta = await testApp(t, { worker: true, extraTasks: { 'test.record': record } });
  await ta.sql`create table test_job_records (note text not null)`;

  const rolledBack = await ta.sql
    .begin(async (tx) => {
      await tx`insert into spaces (name) values ('rolled back')`;
      await addJob(tx, 'test.record', { note: 'rolled back' });
      throw new Error('changed my mind');
    })
    .catch((error: Error) => error.message);
  t.equal(rolledBack, 'changed my mind');
  t.same(
    await ta.sql`select id from graphile_worker.jobs where task_identifier = 'test.record'`,
    [],
    'no job',
  );

  const job = await ta.sql.begin(async (tx) => {
    await tx`insert into spaces (name) values ('committed')`;
    return addJob(tx, 'test.record', { note: 'committed' });
  });
  t.match(job, { id: /^\d+$/, task_identifier: 'test.record' });
  const rows = await until('the job to run', async () => {
    const found = await ta.sql<{ note: string }[]>`select note from test_job_records`;
    return found.length ? found : undefined;
  });
  t.same(
    rows,
    [{ note: 'committed' }],
    'the committed job ran with its payload; the rolled-back one never did',
  );
  await until('the job to be done', async () => {
    const left = await ta.sql`select id from graphile_worker.jobs where id = ${job.id}`;
    return left.length === 0 ? true : undefined;
  });
  t.pass('the completed job is gone from the queue');
});

t.test('a job key keeps one pending job', async (t) => {
  const ta = await testApp(t);
  const first = await addJob(ta.sql, 'test.record', { note: 'first' }, { jobKey: 'refresh:home' });
  const second = await addJob(ta.sql, 'test.record', { note: 'second' }, { jobKey: 'refresh:home' });
  t.equal(second.id, first.id, 'the same job');
  const jobs = await ta.sql<{ key: string; note: string }[]>`
    select key, payload->>'note' as note from graphile_worker._private_jobs where key = 'refresh:home'`;
  t.same(jobs, [{ key: 'refresh:home', note: 'second' }], 'one job, with the latest payload');
  await addJob(ta.sql, 'test.record', { note: 'other' }, { jobKey: 'refresh:work' });
  const [{ count }] = await ta.sql<{ count: number }[]>`
    select count(*)::int as count from graphile_worker.jobs where task_identifier = 'test.record'`;
  t.equal(count, 2, 'another key is another job');
});

t.test('readiness reports the worker', async (t) => {
  const running = await testApp(t, { worker: true });
  const ready = await running.anon({ method: 'GET', url: '/api/readyz' });
  t.equal(ready.statusCode, 200);
  t.equal(ready.json().worker, 'running');

  await running.app.jobs.runner?.stop();
  const stopped = await running.anon({ method: 'GET', url: '/api/readyz' });
  t.equal(stopped.statusCode, 503, 'a stopped worker is not ready');
  t.equal(stopped.json().worker, 'stopped');

  const off = await testApp(t);
  const none = await off.anon({ method: 'GET', url: '/api/readyz' });
  t.equal(none.statusCode, 503, 'nobody runs the jobs');
  t.same(none.json(), {
    status: 'not_ready',
    database: true,
    migrations: { pending: [] },
    worker: 'off',
    reasons: ['the job worker is off in this process'],
  });
});

t.test('a job still fetching at shutdown leaves no guarded connection open', async (t) => {
  // The upstream keeps idle connections for ten minutes: only the hub closing its pool ends this one.
  const upstream = await startUpstream(t, (_request, response) => {
    response.setHeader('keep-alive', 'timeout=600');
    response.end('fetched');
  });
  upstream.server.keepAliveTimeout = 0;
  const sockets: Socket[] = [];
  upstream.server.on('connection', (socket: Socket) => sockets.push(socket));

  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fetchLater: Task = async (_payload, helpers) => {
    started();
    await gate;
    const response = await safeFetch(upstream.url, { allowPrivate: true });
    await helpers.query('insert into test_job_records (note) values ($1)', [response.body.toString()]);
  };
  const ta = await testApp(t, { worker: true, extraTasks: { 'test.fetch-later': fetchLater } });
  await ta.sql`create table test_job_records (note text not null)`;
  await addJob(ta.sql, 'test.fetch-later', {});
  await running;

  // The job fetches only once the worker is being stopped, i.e. after the domains have closed.
  ta.app.jobs.runner?.events.once('pool:gracefulShutdown', () => release());
  await ta.app.close();
  t.same(
    await ta.sql`select note from test_job_records`,
    [{ note: 'fetched' }],
    'the job finished its fetch',
  );
  t.equal(sockets.length, 1, 'the job opened one connection');
  await until('the upstream to see the connection closed', async () =>
    sockets.every((socket) => socket.closed) ? true : undefined,
  );
  t.pass('the pool the job opened was closed with the service');
});

t.test(
  "a worker's first start on a database without graphile-worker's schema sweeps once the schema is there",
  async (t) => {
    const db = await testDatabase(t);
    const admin = postgres(db.adminUrl, { max: 1, onnotice: () => undefined });
    await admin`drop schema graphile_worker cascade`;
    await admin.end();
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });

    const runner = await startWorker({
      connectionString: db.url,
      taskList: {},
      concurrency: 1,
      log,
      cron: false,
    });
    t.teardown(() => runner.stop());
    t.same(
      lines.filter((line) => line.includes('sweep')),
      [],
      'no sweep failure is logged: the sweep beside the schema install ran again after it',
    );
    t.same(
      await db.sql`select count(*)::int as jobs from graphile_worker.jobs`,
      [{ jobs: 0 }],
      "the runner installed graphile-worker's schema",
    );
  },
);
