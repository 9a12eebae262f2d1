// What the job engine and the domains agree on, and nothing else: a domain declares its tasks (name, payload schema,
// attempts) and hands the engine executors and recurring items through its module (module.ts). The engine reads
// this file only; it knows no domain by name. Imports nothing from domains/.
import type { JobHelpers } from 'graphile-worker';
import type { Static, TSchema } from 'typebox';
import type { Config } from '../config/index.ts';
import type { Sql } from '../lib/db.ts';

/** One background task: its `area.verb` name, its payload schema and how often a failing run is tried. */
export interface TaskDefinition<Payload extends TSchema = TSchema> {
  name: string;
  payload: Payload;
  /** What the task does, for the docs. */
  description: string;
  /** Attempts before a failing run is given up (graphile-worker's default is 25). */
  maxAttempts?: number;
}

/** Declares a task; `enqueue(tx, task, payload)` is then typed by its payload schema and checks it. */
export function defineTask<const Payload extends TSchema>(
  definition: TaskDefinition<Payload>,
): TaskDefinition<Payload> {
  return definition;
}

/** What every executor and recurring item is built from. */
export interface JobDeps {
  sql: Sql;
  config: Config;
}

/** An executor: receives the payload already checked against the task's schema. */
export type Executor<Payload extends TSchema = TSchema> = (
  payload: Static<Payload>,
  helpers: JobHelpers,
) => Promise<void>;

/** A task with the executor a domain runs it with, built from the shared dependencies. */
export interface DomainTask<Payload extends TSchema = TSchema> {
  task: TaskDefinition<Payload>;
  executor: (deps: JobDeps) => Executor<Payload>;
}

/** Pairs a task with its executor (typed by the task's payload). */
export function runs<Payload extends TSchema>(
  task: TaskDefinition<Payload>,
  executor: (deps: JobDeps) => Executor<Payload>,
): DomainTask {
  return { task, executor } as unknown as DomainTask;
}

/** A recurring item: a task started on a schedule with a payload. */
export interface CronItem<Payload extends TSchema = TSchema> {
  /** Stable and unique: names the item in logs and deduplicates its runs. */
  id: string;
  task: TaskDefinition<Payload>;
  /** A 5-field cron expression, or where the owner sets it, a function reading it each minute (null: off). */
  schedule: string | ((deps: JobDeps) => Promise<string | null>);
  payload: Static<Payload> | ((deps: JobDeps) => Promise<Static<Payload>>);
}

/** Types a recurring item by its task's payload. */
export function cronItem<Payload extends TSchema>(item: CronItem<Payload>): CronItem {
  return item as unknown as CronItem;
}

/** A domain's recurring items, built from the shared dependencies (configuration decides some of them). */
export type DomainCron = (deps: JobDeps) => CronItem[];

/** A job given up: its last attempt failed, or it failed for good (PermanentJobError, a payload that does not fit). */
export interface JobFailure {
  id: string;
  task: string;
  attempts: number;
  max_attempts: number;
  /** The last error's message. */
  error: string;
}

/** Told of every job given up (the alerts module raises job.failed); a failure of its own is logged, not the job's. */
export type JobFailedHook = (deps: JobDeps, failure: JobFailure) => Promise<void>;

/** A task the owner (or an approved agent proposal) may start by name through /api/actions/run. */
export interface RunnableAction {
  task: TaskDefinition;
  /** What the action's params are merged over to make the payload. */
  defaults?: Record<string, unknown>;
}
