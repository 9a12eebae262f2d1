// The check of a 5-field cron expression (minute hour day-of-month month day-of-week), shared by the configuration,
// the job engine's cron tick and the routes that take a schedule. graphile-worker's parser decides what is valid.
import { parseCronItem } from 'graphile-worker';

/** Why `expression` is not a 5-field cron expression, or null when it is one. */
export function cronProblem(expression: string): string | null {
  if (expression.trim().split(/\s+/).length !== 5) {
    return `"${expression}" is not a cron expression of 5 fields (minute hour day-of-month month day-of-week)`;
  }
  try {
    parseCronItem({ task: 'cron.tick', match: expression });
    return null;
  } catch (error) {
    return `"${expression}" is not a valid cron expression: ${(error as Error).message}`;
  }
}
