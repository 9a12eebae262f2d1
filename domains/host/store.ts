// The host figures at or over their alert thresholds (host_threshold_breaches, migration 0037).
import type { Db } from '../../lib/db.ts';

export interface Breach {
  metric: string;
  value: number;
  /** How long it has been over, in minutes. */
  over_minutes: number;
}

/**
 * Records which figures are over now: each keeps the time it first went over; one no longer listed loses its row.
 * Returns the figures over now, with how long each has been.
 */
export async function recordBreaches(sql: Db, over: { metric: string; value: number }[]): Promise<Breach[]> {
  await sql`
    delete from host_threshold_breaches where not (metric = any(${over.map((entry) => entry.metric)}::text[]))`;
  if (over.length === 0) return [];
  return sql<Breach[]>`
    insert into host_threshold_breaches (metric, over_since, value)
    select metric, now(), value from jsonb_to_recordset(${sql.json(over as never)}::jsonb) as o(metric text, value real)
    on conflict (metric) do update set value = excluded.value
    returning metric, value, extract(epoch from now() - over_since)::float8 / 60 as over_minutes`;
}
