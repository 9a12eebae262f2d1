// Keeps job_records in step with what the worker does: every task executor of every domain is wrapped here, so a
// job shows as running, completed or failed (with its last error) without the domains doing anything.
import type { JobHelpers, Task, TaskList } from 'graphile-worker';
import type { Config } from '../config/index.ts';
import type { Sql } from '../lib/db.ts';
import type { JobFailure } from './contract.ts';
import { PermanentJobError } from './errors.ts';
import {
  exhaustAttempts,
  pruneJobRecords,
  recordCompleted,
  recordFailure,
  recordRunning,
} from './records.ts';

export interface RecordingDeps {
  sql: Sql;
  config: Pick<Config, 'jobs'>;
  /** Told of each job given up, after its record says so. */
  onFailed?: (failure: JobFailure) => Promise<void>;
}

const pruneEveryMs = 10 * 60_000;
let lastPrune = 0;

function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 2000 ? `${message.slice(0, 2000)}…` : message;
}

function recorded(deps: RecordingDeps, task: Task): Task {
  return async (payload: unknown, helpers: JobHelpers) => {
    const job = helpers.job;
    const id = String(job.id);
    await recordRunning(deps.sql, {
      id,
      task_identifier: job.task_identifier,
      payload: job.payload,
      key: job.key,
      attempts: job.attempts,
      max_attempts: job.max_attempts,
    });
    try {
      await task(payload, helpers);
    } catch (error) {
      const permanent = error instanceof PermanentJobError;
      const final = permanent || job.attempts >= job.max_attempts;
      try {
        if (permanent) await exhaustAttempts(deps.sql, id);
        await recordFailure(deps.sql, id, errorMessage(error), final);
      } catch (recordError) {
        // The job's own error is what graphile-worker must see; the record catches up on the next run.
        helpers.logger.error(`could not record the failure of job ${id}: ${errorMessage(recordError)}`);
      }
      if (final && deps.onFailed) {
        const failure = {
          id,
          task: job.task_identifier,
          attempts: job.attempts,
          max_attempts: job.max_attempts,
          error: errorMessage(error),
        };
        await deps
          .onFailed(failure)
          .catch((hookError: unknown) =>
            helpers.logger.error(`could not report the failure of job ${id}: ${errorMessage(hookError)}`),
          );
      }
      throw error;
    }
    await recordCompleted(deps.sql, id);
    if (Date.now() - lastPrune > pruneEveryMs) {
      lastPrune = Date.now();
      await pruneJobRecords(deps.sql, deps.config.jobs.retentionHours).catch((error: unknown) =>
        helpers.logger.warn(`pruning old job records failed: ${errorMessage(error)}`),
      );
    }
  };
}

/** The same task list, each executor wrapped so its job record follows every run. */
export function recordedTaskList(deps: RecordingDeps, tasks: TaskList): TaskList {
  const wrapped: TaskList = {};
  for (const [name, task] of Object.entries(tasks)) {
    if (task) wrapped[name] = recorded(deps, task as Task);
  }
  return wrapped;
}
