// When maintenance is on, and for what. A window is one stretch (starts_at to ends_at) or recurring: an RFC 5545
// RRULE counted from starts_at (its DTSTART, in UTC), each occurrence lasting duration_minutes; the `rrule` package
// expands it. The services a window covers are those it lists and those running on a resource it lists.
// What other domains call: the health checks (is a service in maintenance now?) and the status pages (what to show).
import rrulePackage from 'rrule';
import { hubError } from '../../lib/errors.ts';
import type { Db } from '../../plugins/db.ts';
import { listWindows, servicesOnResources, type WindowRow } from './store.ts';

const { RRule } = rrulePackage;

export interface Occurrence {
  starts_at: Date;
  ends_at: Date;
}

type Timing = Pick<WindowRow, 'starts_at' | 'ends_at' | 'rrule' | 'duration_minutes'>;

/**
 * The rule of a recurring window, from its text with or without the `RRULE:` prefix. Rules more frequent than hourly
 * are refused: a window is a planned stretch of hours, and the expansion walks from DTSTART.
 */
export function recurrence(text: string, startsAt: Date) {
  let options: ReturnType<typeof RRule.parseString>;
  try {
    options = RRule.parseString(text.trim().replace(/^RRULE:/i, ''));
  } catch (error) {
    throw hubError('INVALID_MAINTENANCE', `rrule: ${(error as Error).message}`);
  }
  if (options.freq === undefined) throw hubError('INVALID_MAINTENANCE', 'rrule: FREQ is required');
  if (options.freq > RRule.HOURLY) {
    throw hubError('INVALID_MAINTENANCE', 'rrule: a window recurs at most hourly (FREQ=HOURLY or slower)');
  }
  if (options.dtstart) throw hubError('INVALID_MAINTENANCE', 'rrule: the start is starts_at, not DTSTART');
  return new RRule({ ...options, dtstart: startsAt, tzid: null });
}

const minutes = (n: number) => n * 60_000;

/** The occurrence of a window on at `at`, or null. */
export function occurrenceAt(window: Timing, at: Date): Occurrence | null {
  if (!window.rrule) {
    return window.ends_at && window.starts_at <= at && at < window.ends_at
      ? { starts_at: window.starts_at, ends_at: window.ends_at }
      : null;
  }
  const start = recurrence(window.rrule, window.starts_at).before(at, true);
  if (!start) return null;
  const end = new Date(start.getTime() + minutes(window.duration_minutes ?? 0));
  return at < end ? { starts_at: start, ends_at: end } : null;
}

/** The next occurrence to start after `at`, or null when none is left. */
export function nextOccurrence(window: Timing, at: Date): Occurrence | null {
  if (!window.rrule) {
    return window.ends_at && window.starts_at > at
      ? { starts_at: window.starts_at, ends_at: window.ends_at }
      : null;
  }
  const start = recurrence(window.rrule, window.starts_at).after(at, false);
  return start
    ? { starts_at: start, ends_at: new Date(start.getTime() + minutes(window.duration_minutes ?? 0)) }
    : null;
}

/** A window as the API shows it: its occurrence on now and the next one. */
export function presentWindow(row: WindowRow, now: Date) {
  const { announced_start: _announced, ...window } = row;
  const current = occurrenceAt(row, now);
  return { ...window, active: current !== null, current, next: nextOccurrence(row, now) };
}

/** A service's maintenance now: which window, and when its occurrence ends. */
export interface ServiceMaintenance {
  id: string;
  title: string;
  ends_at: Date;
}

async function coveredServices(sql: Db, window: WindowRow): Promise<string[]> {
  return [...new Set([...window.service_ids, ...(await servicesOnResources(sql, window.resource_ids))])];
}

/** The services in maintenance at `at`, each with its window (the one ending last where several overlap). */
export async function maintenanceAt(
  sql: Db,
  at: Date = new Date(),
): Promise<Map<string, ServiceMaintenance>> {
  const covered = new Map<string, ServiceMaintenance>();
  for (const window of await listWindows(sql)) {
    const occurrence = occurrenceAt(window, at);
    if (!occurrence) continue;
    const entry = { id: window.id, title: window.title, ends_at: occurrence.ends_at };
    for (const serviceId of await coveredServices(sql, window)) {
      const known = covered.get(serviceId);
      if (!known || known.ends_at < entry.ends_at) covered.set(serviceId, entry);
    }
  }
  return covered;
}

/** What a status page shows of maintenance: the windows covering any of its services, on now or coming next. */
export interface StatusMaintenance {
  id: string;
  title: string;
  active: boolean;
  starts_at: Date;
  ends_at: Date;
  /** Those of the page's services the window covers. */
  service_ids: string[];
}

/**
 * The maintenance a status page showing `serviceIds` announces at `at`: each window covering one of them that is on
 * now, or whose next occurrence starts within `aheadDays`; on ones first, then by start.
 */
export async function maintenanceForStatusPage(
  sql: Db,
  serviceIds: readonly string[],
  { at = new Date(), aheadDays = 7 }: { at?: Date; aheadDays?: number } = {},
): Promise<StatusMaintenance[]> {
  const shown = new Set(serviceIds);
  const horizon = new Date(at.getTime() + aheadDays * 86_400_000);
  const found: StatusMaintenance[] = [];
  for (const window of await listWindows(sql)) {
    const current = occurrenceAt(window, at);
    const occurrence = current ?? nextOccurrence(window, at);
    if (!occurrence || occurrence.starts_at > horizon) continue;
    const covered = (await coveredServices(sql, window)).filter((id) => shown.has(id));
    if (covered.length === 0) continue;
    found.push({
      id: window.id,
      title: window.title,
      active: current !== null,
      ...occurrence,
      service_ids: covered,
    });
  }
  return found.sort(
    (a, b) => Number(b.active) - Number(a.active) || a.starts_at.getTime() - b.starts_at.getTime(),
  );
}
