// The owner's jobs API (list with filters, get, retry, delete), the job records kept beside graphile-worker, their
// retention, and the recovery of jobs locked by a worker process that died.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { addJob } from '../../worker/enqueue.ts';
import { PermanentJobError } from '../../worker/errors.ts';
import {
  pruneJobRecords,
  recoverDeadWorkerJobs,
  registerWorkerPool,
  registerWorkerProcess,
} from '../../worker/records.ts';
import { createAgent, type TestApp, testApp } from '../helpers/app.ts';
import { settled } from './capture/helpers.ts';

interface Control {
  failNext: boolean;
  release: (() => void) | null;
  started: number;
}

function tasks(control: Control) {
  return {
    'test.ok': async () => undefined,
    'test.permanent': async () => {
      if (control.failNext) throw new PermanentJobError('the thing is gone for good');
    },
    'test.transient': async () => {
      throw new Error('upstream hiccup');
    },
    'test.block': async () => {
      control.started += 1;
      await new Promise<void>((resolve) => {
        control.release = resolve;
      });
    },
  };
}

async function add(ta: TestApp, task: string, payload: unknown, options: Parameters<typeof addJob>[3] = {}) {
  return (await addJob(ta.sql, task, payload, options)).id;
}

function get(ta: TestApp, url: string) {
  return ta.asOwner({ method: 'GET', url });
}

t.test('jobs are listed with payload, state and last error; filters and pages', async (t) => {
  const control: Control = { failNext: true, release: null, started: 0 };
  const ta = await testApp(t, { worker: true, extraTasks: tasks(control) });
  const ok = await add(ta, 'test.ok', { n: 1 });
  const failed = await add(ta, 'test.permanent', { n: 2, nested: { deep: [1, 2] } });
  const exhausted = await add(ta, 'test.transient', { n: 3 }, { maxAttempts: 1 });
  const later = await add(ta, 'test.ok', { n: 4 }, { runAt: new Date(Date.now() + 3_600_000) });
  for (const id of [ok, failed, exhausted]) await settled(ta, id);

  const all = await get(ta, '/api/jobs');
  t.equal(all.statusCode, 200);
  t.equal(all.json().total, 4);
  t.same(
    all.json().items.map((job: { id: string }) => job.id),
    [later, exhausted, failed, ok],
    'newest first',
  );
  const one = await get(ta, `/api/jobs/${failed}`);
  t.match(one.json(), {
    id: failed,
    task: 'test.permanent',
    state: 'failed',
    payload: { n: 2, nested: { deep: [1, 2] } },
    attempts: 1,
    max_attempts: 25,
    last_error: 'the thing is gone for good',
    finished_at: /^\d{4}-/,
  });
  t.match((await get(ta, `/api/jobs/${exhausted}`)).json(), {
    state: 'failed',
    attempts: 1,
    last_error: 'upstream hiccup',
  });
  t.match((await get(ta, `/api/jobs/${ok}`)).json(), {
    state: 'completed',
    last_error: null,
    payload: { n: 1 },
  });
  t.match((await get(ta, `/api/jobs/${later}`)).json(), { state: 'queued', attempts: 0, started_at: null });

  const byTask = await get(ta, '/api/jobs?task=test.ok');
  t.same(
    byTask.json().items.map((job: { id: string }) => job.id),
    [later, ok],
  );
  const byState = await get(ta, '/api/jobs?state=failed');
  t.same(
    byState.json().items.map((job: { id: string }) => job.id),
    [exhausted, failed],
  );
  const both = await get(ta, '/api/jobs?state=completed&task=test.ok');
  t.equal(both.json().total, 1);
  const page = await get(ta, '/api/jobs?limit=1&offset=1');
  t.match(page.json(), { total: 4, limit: 1, offset: 1, items: [{ id: exhausted }] });
  t.equal((await get(ta, '/api/jobs?state=done')).statusCode, 400);
  t.equal((await get(ta, '/api/jobs/abc')).statusCode, 400);
  t.equal((await get(ta, '/api/jobs/999999')).statusCode, 404);
});

t.test('retry runs a failed job again now; running and completed jobs cannot be retried', async (t) => {
  const control: Control = { failNext: true, release: null, started: 0 };
  const ta = await testApp(t, { worker: true, extraTasks: tasks(control) });
  const id = await add(ta, 'test.permanent', { n: 1 }, { maxAttempts: 3 });
  t.equal((await settled(ta, id)).state, 'failed');
  control.failNext = false;
  const retried = await ta.asOwner({ method: 'POST', url: `/api/jobs/${id}/retry` });
  t.equal(retried.statusCode, 202);
  t.match(retried.json(), { id, attempts: 0 });
  const done = await settled(ta, id);
  t.match(
    done,
    { state: 'completed', attempts: 1, last_error: null },
    'the same job ran once more and succeeded',
  );
  const again = await ta.asOwner({ method: 'POST', url: `/api/jobs/${id}/retry` });
  t.equal(again.statusCode, 409);
  t.match(again.json().message, /completed/);

  const blocked = await add(ta, 'test.block', {});
  while (control.release === null) await sleep(20);
  t.equal((await get(ta, `/api/jobs/${blocked}`)).json().state, 'running');
  t.equal((await ta.asOwner({ method: 'POST', url: `/api/jobs/${blocked}/retry` })).statusCode, 409);
  const deleteRunning = await ta.asOwner({ method: 'DELETE', url: `/api/jobs/${blocked}` });
  t.equal(deleteRunning.statusCode, 409);
  t.match(deleteRunning.json().message, /running/);
  control.release();
  t.equal((await settled(ta, blocked)).state, 'completed');
  t.equal(control.started, 1);
  t.equal((await ta.asOwner({ method: 'POST', url: '/api/jobs/424242/retry' })).statusCode, 404);
});

t.test(
  'delete removes a queued or failed job from the queue, and a finished one from the list',
  async (t) => {
    const control: Control = { failNext: true, release: null, started: 0 };
    const ta = await testApp(t, { worker: true, extraTasks: tasks(control) });
    const queued = await add(ta, 'test.ok', {}, { runAt: new Date(Date.now() + 3_600_000) });
    const failed = await add(ta, 'test.permanent', {});
    const completed = await add(ta, 'test.ok', {});
    await settled(ta, failed);
    await settled(ta, completed);
    for (const id of [queued, failed, completed]) {
      t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/jobs/${id}` })).statusCode, 204, id);
      t.equal((await get(ta, `/api/jobs/${id}`)).statusCode, 404);
    }
    const left =
      await ta.sql`select id from graphile_worker.jobs where id in ${ta.sql([queued, failed, completed])}`;
    t.equal(left.length, 0, 'gone from the queue too');
    t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/jobs/${queued}` })).statusCode, 404);
  },
);

t.test('the jobs API is for the owner only', async (t) => {
  const ta = await testApp(t);
  const agent = await createAgent(ta, { tier: 'owner' });
  const id = await add(ta, 'test.ok', {});
  const routes = [
    { method: 'GET' as const, url: '/api/jobs' },
    { method: 'GET' as const, url: `/api/jobs/${id}` },
    { method: 'POST' as const, url: `/api/jobs/${id}/retry` },
    { method: 'DELETE' as const, url: `/api/jobs/${id}` },
  ];
  for (const route of routes) {
    t.equal((await ta.anon(route)).statusCode, 401, `${route.method} ${route.url} without credentials`);
    t.equal(
      (await ta.asAgent(agent.token, route)).statusCode,
      403,
      `${route.method} ${route.url} as an agent`,
    );
  }
  t.equal((await get(ta, `/api/jobs/${id}`)).statusCode, 200);
});

t.test('finished jobs stay visible for JOBS_RETENTION_HOURS, then are pruned', async (t) => {
  const control: Control = { failNext: true, release: null, started: 0 };
  const ta = await testApp(t, {
    worker: true,
    extraTasks: tasks(control),
    env: { JOBS_RETENTION_HOURS: '2' },
  });
  const fresh = await add(ta, 'test.ok', {});
  const old = await add(ta, 'test.ok', {});
  const oldFailed = await add(ta, 'test.permanent', {});
  const waiting = await add(ta, 'test.ok', {}, { runAt: new Date(Date.now() + 3_600_000) });
  for (const id of [fresh, old, oldFailed]) await settled(ta, id);
  // The record can say failed while graphile-worker still holds the job's row for a moment; only a row it has let go
  // of can be completed, so the prune is run once it has.
  for (let tries = 0; tries < 200; tries++) {
    const [held] = await ta.sql`select count(*)::int as count from graphile_worker.jobs
      where id = ${oldFailed} and locked_at is not null`;
    if (held.count === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await ta.sql`
    update job_records set finished_at = now() - interval '3 hours' where id in ${ta.sql([old, oldFailed])}`;
  const listed = await get(ta, '/api/jobs');
  t.same(
    listed
      .json()
      .items.map((job: { id: string }) => job.id)
      .sort(),
    [fresh, waiting].sort(),
    'past the retention a finished job is no longer shown',
  );
  t.equal((await get(ta, `/api/jobs/${old}`)).statusCode, 404);
  t.equal(await pruneJobRecords(ta.sql, 2), 2);
  const records = await ta.sql`select id::text from job_records order by id`;
  t.same(
    records.map((row) => row.id),
    [fresh, waiting].sort((a, b) => Number(a) - Number(b)),
  );
  const [gone] =
    await ta.sql`select count(*)::int as count from graphile_worker.jobs where id = ${oldFailed}`;
  t.equal(gone.count, 0, "the failed job's row left graphile-worker's table with its record");
});

t.test('jobs locked by a worker process that is gone are freed; live ones are left alone', async (t) => {
  const ta = await testApp(t);
  const dead = await add(ta, 'test.ok', { who: 'dead' });
  const live = await add(ta, 'test.ok', { who: 'live' });
  const untouched = await add(ta, 'test.ok', { who: 'idle' });
  // A live process: its advisory lock is held by this reserved connection.
  const connection = await ta.sql.reserve();
  t.teardown(() => connection.release());
  const lockId = await registerWorkerProcess(connection, 'test-host', 1);
  await registerWorkerPool(connection, 'pool-live', lockId);
  // A dead one: registered, but nobody holds its lock any more.
  const other = await ta.sql.reserve();
  const deadLock = await registerWorkerProcess(other, 'test-host', 2);
  await registerWorkerPool(other, 'pool-dead', deadLock);
  await other`select pg_advisory_unlock_all()`;
  other.release();
  await ta.sql`
    update graphile_worker._private_jobs set locked_at = now(), locked_by = 'pool-dead', attempts = 1
    where id = ${dead}`;
  await ta.sql`
    update graphile_worker._private_jobs set locked_at = now(), locked_by = 'pool-live', attempts = 1
    where id = ${live}`;
  await ta.sql`update job_records set state = 'running' where id in ${ta.sql([dead, live])}`;

  t.same(await recoverDeadWorkerJobs(ta.sql), [dead]);
  const rows = await ta.sql<{ id: string; locked_by: string | null }[]>`
    select id::text, locked_by from graphile_worker.jobs where id in ${ta.sql([dead, live, untouched])} order by id`;
  t.same(rows, [
    { id: dead, locked_by: null },
    { id: live, locked_by: 'pool-live' },
    { id: untouched, locked_by: null },
  ]);
  t.equal((await get(ta, `/api/jobs/${dead}`)).json().state, 'queued');
  t.equal((await get(ta, `/api/jobs/${live}`)).json().state, 'running');
  const processes = await ta.sql`select lock_id from worker_processes`;
  t.same(
    processes.map((row) => row.lock_id),
    [lockId],
    'the dead process is forgotten',
  );
  t.same(await recoverDeadWorkerJobs(ta.sql), [], 'nothing more to free');
});
