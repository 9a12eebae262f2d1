// The cron registry: recurring work that domains contribute (a task, a schedule, a payload). graphile-worker's cron
// starts one `cron.tick` job a minute (deduplicated across processes by its known_crontabs table); the tick asks each
// item for its schedule at that moment and enqueues the items due. A schedule held in an owner setting is therefore
// read afresh every minute: a change applies from the next minute on, without restarting anything.
// Schedules are 5-field cron expressions in the hub's local time zone (TZ).
import type { CronItem as GraphileCronItem, JobHelpers, Task } from 'graphile-worker';
import { cronMatches } from '../lib/cron.ts';
import type { CronItem, JobDeps } from './contract.ts';
import { enqueue } from './enqueue.ts';

export const cronTickTask = 'cron.tick';

/** The one item graphile-worker's cron runs. */
export const cronTickItem: GraphileCronItem = {
  task: cronTickTask,
  match: '* * * * *',
  identifier: cronTickTask,
  // A tick missed while no worker ran is not made up: each item's own schedule decides what is due now.
  options: { backfillPeriod: 0, maxAttempts: 1, jobKey: cronTickTask, jobKeyMode: 'replace' },
};

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
      await enqueue(deps.sql, item.task, payload, {
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
