// The worker's own bookkeeping: job_records follows every job from enqueue to its end (the jobs API and history
// screens read it, since graphile-worker deletes completed jobs), and the worker-process registry lets a live process
// free the jobs a crashed one left locked.
import type { Db, Sql } from '../lib/db.ts';

export type JobState = 'queued' | 'running' | 'failed' | 'completed';

/** A job as graphile-worker hands it to an executor (the fields the record needs). */
export interface RunningJob {
  id: string;
  task_identifier: string;
  payload: unknown;
  key: string | null;
  attempts: number;
  max_attempts: number;
}

/** Called in the transaction that adds the job; a job key that replaced a queued job resets its record. */
export async function recordEnqueued(
  sql: Db,
  job: { id: string; task: string; payload: unknown; job_key: string | null; max_attempts: number },
): Promise<void> {
  await sql`
    insert into job_records (id, task, payload, job_key, max_attempts)
    values (${job.id}, ${job.task}, ${sql.json((job.payload ?? {}) as never)}, ${job.job_key}, ${job.max_attempts})
    on conflict (id) do update set
      task = excluded.task, payload = excluded.payload, job_key = excluded.job_key,
      max_attempts = excluded.max_attempts, state = 'queued', attempts = 0, last_error = null,
      started_at = null, finished_at = null, updated_at = now()`;
}

/** Upserts, so jobs added without enqueue() (cron, graphile's addJob) are recorded from their first run on. */
export async function recordRunning(sql: Db, job: RunningJob): Promise<void> {
  await sql`
    insert into job_records (id, task, payload, job_key, state, attempts, max_attempts, started_at)
    values (${job.id}, ${job.task_identifier}, ${sql.json((job.payload ?? {}) as never)}, ${job.key}, 'running',
      ${job.attempts}, ${job.max_attempts}, now())
    on conflict (id) do update set
      state = 'running', attempts = excluded.attempts, started_at = now(), finished_at = null, updated_at = now()`;
}

export async function recordCompleted(sql: Db, id: string): Promise<void> {
  await sql`
    update job_records set state = 'completed', last_error = null, finished_at = now(), updated_at = now()
    where id = ${id}`;
}

/** `final`: no attempt follows (permanent error or attempts exhausted); otherwise the job waits for its retry. */
export async function recordFailure(sql: Db, id: string, error: string, final: boolean): Promise<void> {
  await sql`
    update job_records set
      state = ${final ? 'failed' : 'queued'}, last_error = ${error},
      finished_at = ${final ? sql`now()` : null}, updated_at = now()
    where id = ${id}`;
}

/**
 * Stops graphile-worker from retrying a job that is running now: with max_attempts lowered to the attempts made,
 * the failure about to be reported leaves it permanently failed. No public function does this for a locked job.
 */
export async function exhaustAttempts(sql: Db, id: string): Promise<void> {
  await sql`update graphile_worker._private_jobs set max_attempts = attempts where id = ${id}`;
}

/** Deletes finished records (and the rows of permanently failed jobs) older than the retention. */
export async function pruneJobRecords(sql: Sql, retentionHours: number): Promise<number> {
  return sql.begin(async (tx) => {
    const expired = await tx<{ id: string; state: JobState }[]>`
      delete from job_records
      where finished_at < now() - make_interval(hours => ${retentionHours})
      returning id::text, state`;
    const failed = expired.filter((row) => row.state === 'failed').map((row) => row.id);
    if (failed.length > 0) await tx`select graphile_worker.complete_jobs(${failed}::bigint[])`;
    return expired.length;
  });
}

// Worker pools: which process runs which graphile-worker pool, and which of those processes are alive

/** First key of the two-key advisory locks worker processes hold; the second is their lock_id. */
export const workerLockClass = 74_065_512;

/** Registers this process and takes its advisory lock, in one statement so no sweep sees the row unlocked. */
export async function registerWorkerProcess(sql: Db, host: string, pid: number): Promise<number> {
  const [row] = await sql<{ lock_id: number }[]>`
    with registered as (
      insert into worker_processes (host, pid) values (${host}, ${pid}) returning lock_id
    )
    select lock_id, pg_advisory_lock(${workerLockClass}, lock_id) from registered`;
  return row.lock_id;
}

/** Takes the lock again after the connection holding it was replaced. */
export async function relockWorkerProcess(sql: Db, lockId: number): Promise<void> {
  await sql`select pg_advisory_lock(${workerLockClass}, ${lockId})`;
}

export async function registerWorkerPool(sql: Db, poolId: string, lockId: number): Promise<void> {
  await sql`
    insert into worker_pools (pool_id, lock_id) values (${poolId}, ${lockId})
    on conflict (pool_id) do nothing`;
}

export async function forgetWorkerProcess(sql: Db, lockId: number): Promise<void> {
  await sql`delete from worker_processes where lock_id = ${lockId}`;
  await sql`select pg_advisory_unlock(${workerLockClass}, ${lockId})`;
}

/** Lock ids whose advisory lock some session of this database holds, that is whose process is alive. */
function liveLocks(sql: Db) {
  return sql`
    select l.objid::bigint as lock_id from pg_locks l
    where l.locktype = 'advisory' and l.granted and l.objsubid = 2
      and l.database = (select oid from pg_database where datname = current_database())
      and l.classid = ${workerLockClass}::integer::oid`;
}

/** Worker processes alive now: registered and still holding their lock (a crashed one leaves its row unlocked). */
export async function countLiveWorkerProcesses(sql: Db): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from worker_processes where lock_id in (${liveLocks(sql)})`;
  return row.count;
}

/**
 * Unlocks the jobs held by pools whose process is gone (graphile-worker itself waits 4 hours), so they run again
 * now, and forgets those processes. Returns the ids of the jobs set free.
 */
export async function recoverDeadWorkerJobs(sql: Sql): Promise<string[]> {
  return sql.begin(async (tx) => {
    const live = tx`
      select p.pool_id from worker_pools p where p.lock_id in (${liveLocks(tx)})`;
    const jobs = await tx<{ id: string; locked_by: string }[]>`
      select id::text, locked_by from graphile_worker.jobs
      where locked_by is not null and locked_by not in (${live})`;
    const queues = await tx<{ locked_by: string }[]>`
      select locked_by from graphile_worker._private_job_queues
      where locked_by is not null and locked_by not in (${live})`;
    const pools = [...new Set([...jobs, ...queues].map((row) => row.locked_by))];
    if (pools.length > 0) {
      await tx`select graphile_worker.force_unlock_workers(${pools}::text[])`;
      await tx`
        update job_records set state = 'queued', updated_at = now()
        where id = any(${jobs.map((job) => job.id)}::bigint[]) and state = 'running'`;
    }
    await tx`delete from worker_processes where lock_id not in (${liveLocks(tx)})`;
    return jobs.map((job) => job.id);
  });
}
