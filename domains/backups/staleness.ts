// Whether backups are stale: no successful run has finished since the schedule's last expected run plus a grace
// period (6 hours by default), or, without a schedule, within the last 48 hours. Schedules are cron expressions in
// the hub's local time zone, like the cron registry's.
import { parseCronItem } from 'graphile-worker';

export interface StalenessRules {
  graceHours: number;
  unscheduledHours: number;
}

export const defaultStalenessRules: StalenessRules = { graceHours: 6, unscheduledHours: 48 };

const minuteMs = 60_000;
/** How far back an expected run is looked for (a monthly schedule fits). */
const lookbackMinutes = 62 * 24 * 60;

/** The latest minute at or before `before` that `schedule` matches, or null within the look-back. */
export function lastExpectedRun(schedule: string, before: Date): Date | null {
  const parsed = parseCronItem({ task: 'backup', match: schedule });
  const at = new Date(before);
  at.setSeconds(0, 0);
  for (let i = 0; i < lookbackMinutes; i++) {
    if (
      parsed.match({
        min: at.getMinutes(),
        hour: at.getHours(),
        date: at.getDate(),
        month: at.getMonth() + 1,
        dow: at.getDay(),
      })
    ) {
      return at;
    }
    at.setTime(at.getTime() - minuteMs);
  }
  return null;
}

export function staleness(
  lastSuccess: Date | null,
  schedule: string | null,
  now: Date,
  rules: StalenessRules = defaultStalenessRules,
): { stale: boolean; reason: string | null; expectedSince: Date | null } {
  const graceMs = rules.graceHours * 3_600_000;
  if (schedule) {
    // The run due before now minus the grace: it has had its grace period to finish.
    const expected = lastExpectedRun(schedule, new Date(now.getTime() - graceMs));
    if (expected && (!lastSuccess || lastSuccess < expected)) {
      return {
        stale: true,
        reason: `no successful run since the run expected at ${expected.toISOString()} (schedule "${schedule}", ${rules.graceHours} h grace)`,
        expectedSince: expected,
      };
    }
    return { stale: false, reason: null, expectedSince: expected };
  }
  const since = new Date(now.getTime() - rules.unscheduledHours * 3_600_000);
  if (!lastSuccess || lastSuccess < since) {
    return {
      stale: true,
      reason: lastSuccess
        ? `no successful run in the last ${rules.unscheduledHours} h`
        : 'no successful run recorded',
      expectedSince: since,
    };
  }
  return { stale: false, reason: null, expectedSince: since };
}
