// Adding a job: typed by the task's definition, the payload checked against the task's schema, and done with the
// caller's connection or transaction, so a job exists exactly when the rows it belongs to do.
import type { Static, TSchema } from 'typebox';
import type { Db, Sql } from '../lib/db.ts';
import { Compile } from '../lib/typebox.ts';
import type { TaskDefinition } from './contract.ts';
import { recordEnqueued } from './records.ts';

export interface EnqueueOptions {
  /** Deduplicates: a pending job with the same key is replaced rather than added again. */
  jobKey?: string;
  runAt?: Date;
  maxAttempts?: number;
  queueName?: string;
  priority?: number;
}

export interface EnqueuedJob<Name extends string = string> {
  id: string;
  task_identifier: Name;
}

const checkers = new WeakMap<TaskDefinition, ReturnType<typeof Compile>>();

/** Why `payload` does not fit the task's schema, or null when it does. */
export function payloadProblem(task: TaskDefinition, payload: unknown): string | null {
  let checker = checkers.get(task);
  if (!checker) {
    checker = Compile(task.payload);
    checkers.set(task, checker);
  }
  if (checker.Check(payload)) return null;
  const [first] = checker.Errors(payload);
  return `invalid ${task.name} payload: ${first ? `${first.instancePath || '(root)'} ${first.message}` : 'does not match'}`;
}

/** Adds a job with the caller's connection or transaction: it commits or rolls back with the caller's work. */
export async function enqueue<Payload extends TSchema>(
  sql: Db,
  task: TaskDefinition<Payload>,
  payload: Static<Payload>,
  options: EnqueueOptions = {},
): Promise<EnqueuedJob> {
  const problem = payloadProblem(task, payload);
  if (problem) throw new TypeError(problem);
  return addJob(sql, task.name, payload, {
    ...options,
    maxAttempts: options.maxAttempts ?? task.maxAttempts,
  });
}

/**
 * The unchecked form under `enqueue`, for jobs no domain declares (the cron tick, tests' own tasks). Domains use
 * `enqueue`.
 */
export async function addJob<Name extends string>(
  sql: Db,
  task: Name,
  payload: unknown,
  options: EnqueueOptions = {},
): Promise<EnqueuedJob<Name>> {
  // The job and its record in one transaction: added on the bare pool, a worker could start (even finish) the job
  // between the two statements, and the record would then be reset to queued behind it.
  if (isPool(sql)) return sql.begin((tx) => addJob(tx, task, payload, options)) as Promise<EnqueuedJob<Name>>;
  const [job] = await sql<{ id: string; key: string | null; max_attempts: number }[]>`
    select id::text, key, max_attempts from graphile_worker.add_job(
      identifier => ${task},
      payload => ${sql.json((payload ?? {}) as never)}::json,
      queue_name => ${options.queueName ?? null},
      run_at => ${options.runAt ?? null},
      max_attempts => ${options.maxAttempts ?? null},
      job_key => ${options.jobKey ?? null},
      priority => ${options.priority ?? null}
    )`;
  // The jobs API lists it from now on, in the same transaction (graphile-worker forgets completed jobs).
  await recordEnqueued(sql, { id: job.id, task, payload, job_key: job.key, max_attempts: job.max_attempts });
  return { id: job.id, task_identifier: task };
}

/** The pool itself rather than a transaction (only the pool can begin one). */
function isPool(sql: Db): sql is Sql {
  return 'begin' in sql && typeof sql.begin === 'function';
}
