// The owner's view of job_records (kept by the worker, worker/records.ts): graphile-worker deletes completed jobs and
// its `jobs` view has no payload, so the jobs API reads job_records; retry and delete act on graphile-worker's rows
// through its SQL functions.
import type { Static } from 'typebox';
import { listPage } from '../../lib/list-page.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import type { JobState } from '../../worker/records.ts';
import type { Job } from './schema.ts';

export type { JobState };

/** A row as the API shows it: the Job schema's type. */
export type JobRecordRow = Static<typeof Job>;

const columns = (sql: Db) => sql`
  id::text, task, payload, job_key, state, attempts, max_attempts, last_error, created_at, updated_at,
  started_at, finished_at`;

function visible(sql: Db, retentionHours: number) {
  return sql`(finished_at is null or finished_at >= now() - make_interval(hours => ${retentionHours}))`;
}

export async function listJobRecords(
  sql: Db,
  filter: { task?: string; state?: JobState; limit: number; offset: number },
  retentionHours: number,
): Promise<{ items: JobRecordRow[]; total: number }> {
  const where = sql`
    where ${visible(sql, retentionHours)}
    ${filter.task ? sql`and task = ${filter.task}` : sql``}
    ${filter.state ? sql`and state = ${filter.state}` : sql``}`;
  return listPage<JobRecordRow>(
    sql,
    {
      select: sql`${columns(sql)}`,
      from: sql`from job_records ${where}`,
      orderBy: sql`created_at desc, id desc`,
    },
    filter,
  );
}

export async function findJobRecord(
  sql: Db,
  id: string,
  retentionHours: number,
): Promise<JobRecordRow | undefined> {
  const [row] = await sql<JobRecordRow[]>`
    select ${columns(sql)} from job_records where id = ${id} and ${visible(sql, retentionHours)}`;
  return row;
}

/**
 * `settling`: the record is final but graphile-worker has not yet released the row (an executor records its
 * outcome just before it returns, the worker unlocks or deletes the row right after); asking again shortly works.
 */
export type JobChange =
  | { ok: true; job: JobRecordRow | null }
  | { ok: false; code: 'JOB_RUNNING' | 'JOB_NOT_RETRYABLE'; reason: string; settling?: boolean };

const settling = {
  ok: false,
  code: 'JOB_RUNNING',
  reason: 'the job is finishing; try again',
  settling: true,
} as const;

/** Whether graphile-worker still holds the job, and whether a worker has it locked right now. */
async function queueState(sql: Db, id: string): Promise<'absent' | 'locked' | 'idle'> {
  const [row] = await sql<{ locked: boolean }[]>`
    select locked_at is not null as locked from graphile_worker.jobs where id = ${id}`;
  if (!row) return 'absent';
  return row.locked ? 'locked' : 'idle';
}

/** Makes a failed job (or one waiting for its next attempt) run again now, with its attempts reset. */
export async function retryJob(sql: Sql, id: string, retentionHours: number): Promise<JobChange | undefined> {
  return sql.begin(async (tx) => {
    const [record] = await tx<JobRecordRow[]>`
      select ${columns(tx)} from job_records where id = ${id} and ${visible(tx, retentionHours)} for update`;
    if (!record) return undefined;
    if (record.state === 'completed' || record.state === 'running') {
      return {
        ok: false,
        code: record.state === 'running' ? 'JOB_RUNNING' : 'JOB_NOT_RETRYABLE',
        reason: `the job is ${record.state}; only failed or queued jobs can be retried`,
      };
    }
    const state = await queueState(tx, id);
    if (state === 'locked')
      return record.state === 'failed'
        ? settling
        : { ok: false, code: 'JOB_RUNNING', reason: 'the job is running' };
    if (state === 'absent') {
      return {
        ok: false,
        code: 'JOB_NOT_RETRYABLE',
        reason: 'the job is no longer in the queue; capture or trigger it again',
      };
    }
    // The SQL function, not the JS rescheduleJobs helper: that one drops attempts: 0 as if it were unset.
    await tx`
      select id from graphile_worker.reschedule_jobs(
        ${[id]}::bigint[], run_at => now(), attempts => 0, max_attempts => ${record.max_attempts})`;
    const [job] = await tx<JobRecordRow[]>`
      update job_records set state = 'queued', attempts = 0, finished_at = null, updated_at = now()
      where id = ${id} returning ${columns(tx)}`;
    return { ok: true, job };
  });
}

/** Removes a job that is not running from the queue, and its record. */
export async function deleteJob(
  sql: Sql,
  id: string,
  retentionHours: number,
): Promise<JobChange | undefined> {
  return sql.begin(async (tx) => {
    const [record] = await tx<JobRecordRow[]>`
      select ${columns(tx)} from job_records where id = ${id} and ${visible(tx, retentionHours)} for update`;
    if (!record) return undefined;
    const running = {
      ok: false,
      code: 'JOB_RUNNING',
      reason: 'the job is running; delete it once it has finished',
    } as const;
    if (record.state === 'running') return running;
    // A completed job's row is graphile-worker's to delete (it does so right after the executor returns).
    if (record.state !== 'completed') {
      if ((await queueState(tx, id)) === 'locked') return record.state === 'failed' ? settling : running;
      // complete_jobs deletes the rows of jobs that are not locked, whatever their state.
      await tx`select graphile_worker.complete_jobs(${[id]}::bigint[])`;
    }
    await tx`delete from job_records where id = ${id}`;
    return { ok: true, job: null };
  });
}
