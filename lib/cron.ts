// Cron expressions: 5 fields in the hub's local time zone (TZ), parsed by graphile-worker's own parser so a schedule
// that passes here is one the job engine runs. The configuration checks its schedules with these at start, the
// settings check theirs when written, and the worker's minute tick asks which items are due. graphile-worker is
// loaded at the first expression checked: the configuration (which a start reads before anything else) checks only
// the schedules set in the environment.
import type * as GraphileWorker from 'graphile-worker';
import { lazyRequire } from './lazy.ts';

const graphileWorker = lazyRequire<typeof GraphileWorker>('graphile-worker');
const parseCronItem: typeof GraphileWorker.parseCronItem = (item) => graphileWorker().parseCronItem(item);

/** Why `expression` is not a 5-field cron expression, or null when it is one. */
export function cronProblem(expression: string): string | null {
  if (expression.trim().split(/\s+/).length !== 5) {
    return `"${expression}" is not a cron expression of 5 fields (minute hour day-of-month month day-of-week)`;
  }
  try {
    parseCronItem({ task: 'cron.check', match: expression });
    return null;
  } catch (error) {
    return `"${expression}" is not a valid cron expression: ${(error as Error).message}`;
  }
}

/** Whether `expression` is due in the minute of `at`, in local time. */
export function cronMatches(expression: string, at: Date): boolean {
  const parsed = parseCronItem({ task: 'cron.check', match: expression });
  return parsed.match({
    min: at.getMinutes(),
    hour: at.getHours(),
    date: at.getDate(),
    month: at.getMonth() + 1,
    dow: at.getDay(),
  });
}
