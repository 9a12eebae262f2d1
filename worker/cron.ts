// The cron registry: recurring work that domains contribute (a task, a schedule, a payload). graphile-worker's cron
// starts one `cron.tick` job a minute (deduplicated across processes by its known_crontabs table); the tick asks each
// item for its schedule at that moment and enqueues the items due. A schedule held in an owner setting is therefore
// read afresh every minute: a change applies from the next minute on, without restarting anything.
// Schedules are 5-field cron expressions in the hub's local time zone (TZ).
import {
  type CronItem as GraphileCronItem,
  type JobHelpers,
  parseCronItem,
  type Task,
} from 'graphile-worker';
import type { TaskName, TaskPayload } from './catalogue.ts';
import { enqueue } from './enqueue.ts';
import type { JobDeps } from './tasks.ts';

export { cronProblem } from '../lib/cron-expression.ts';

export interface CronItem<Name extends TaskName = TaskName> {
  /** Stable and unique: names the item in logs and deduplicates its runs. */
  id: string;
  task: Name;
  /** A 5-field cron expression, or where the owner sets it, a function reading it each minute (null: off). */
  schedule: string | ((deps: JobDeps) => Promise<string | null>);
  payload: TaskPayload<Name> | ((deps: JobDeps) => Promise<TaskPayload<Name>>);
}

/** A domain's recurring items, built from the shared dependencies (settings decide some of them). */
export type DomainCron = (deps: JobDeps) => CronItem[];

export const cronTickTask = 'cron.tick';

/** The one item graphile-worker's cron runs. */
export const cronTickItem: GraphileCronItem = {
  task: cronTickTask,
  match: '* * * * *',
  identifier: cronTickTask,
  // A tick missed while no worker ran is not made up: each item's own schedule decides what is due now.
  options: { backfillPeriod: 0, maxAttempts: 1, jobKey: cronTickTask, jobKeyMode: 'replace' },
};

/** Whether `expression` is due in the minute of `at`, in local time. */
export function cronMatches(expression: string, at: Date): boolean {
  const parsed = parseCronItem({ task: cronTickTask, match: expression });
  return parsed.match({
    min: at.getMinutes(),
    hour: at.getHours(),
    date: at.getDate(),
    month: at.getMonth() + 1,
    dow: at.getDay(),
  });
}

/** The minute the tick stands for: graphile-worker's `_cron.ts`, or now when run by hand. */
function tickTime(payload: unknown): Date {
  const ts = (payload as { _cron?: { ts?: string } } | null)?._cron?.ts;
  const at = ts ? new Date(ts) : new Date();
  return Number.isNaN(at.getTime()) ? new Date() : at;
}

/** Enqueues every item due at `at`; an item whose schedule cannot be read or parsed is skipped and logged. */
export async function runDueItems(
  deps: JobDeps,
  items: CronItem[],
  at: Date,
  log: Pick<JobHelpers['logger'], 'error' | 'info'>,
): Promise<string[]> {
  const minute = new Date(at);
  minute.setSeconds(0, 0);
  const started: string[] = [];
  for (const item of items) {
    try {
      const schedule = typeof item.schedule === 'string' ? item.schedule : await item.schedule(deps);
      if (!schedule || !cronMatches(schedule, minute)) continue;
      const payload = typeof item.payload === 'function' ? await item.payload(deps) : item.payload;
      // One run of an item per minute, however many ticks (or processes) see that minute.
      await enqueue(deps.sql, item.task, payload as never, {
        jobKey: `cron:${item.id}:${minute.toISOString()}`,
      });
      started.push(item.id);
    } catch (error) {
      log.error(`cron item ${item.id} could not be started: ${(error as Error).message}`);
    }
  }
  return started;
}

export function cronTick(deps: JobDeps, items: CronItem[]): Task {
  return async (payload, helpers) => {
    const started = await runDueItems(deps, items, tickTime(payload), helpers.logger);
    if (started.length > 0) helpers.logger.info(`cron started ${started.join(', ')}`);
  };
}
