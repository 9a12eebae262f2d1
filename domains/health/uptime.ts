// Uptime of monitored services for other domains (status pages, badges): the name, state and uptime of each, and a
// bar of daily uptime. Nothing of how a service is checked (address, URL, host, token, messages) is in here, so
// what reads these cannot show it.
import type { Db } from '../../plugins/db.ts';
import { dailyUptime, type UptimeSummary, uptimeSummaries } from './store.ts';

export type { UptimeSummary };

/** The services named that exist (candidates excluded), each with its uptime over 24 hours, 7 and 30 days. */
export async function uptimeOf(sql: Db, ids: string[]): Promise<Map<string, UptimeSummary>> {
  if (ids.length === 0) return new Map();
  const rows = await uptimeSummaries(sql, ids);
  return new Map(rows.map((row) => [row.id, row]));
}

/** One entry per UTC day, oldest first, ending today: the share of passing checks that day, null without checks. */
export type DailyBar = { date: string; uptime: number | null }[];

export async function dailyBars(
  sql: Db,
  ids: string[],
  days: number,
  now = new Date(),
): Promise<Map<string, DailyBar>> {
  const rows = ids.length === 0 ? [] : await dailyUptime(sql, ids, days);
  const byService = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const service = byService.get(row.service_id) ?? new Map<string, number>();
    service.set(row.day, row.uptime);
    byService.set(row.service_id, service);
  }
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const dates = Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
  return new Map(
    ids.map((id) => [id, dates.map((date) => ({ date, uptime: byService.get(id)?.get(date) ?? null }))]),
  );
}
