import type { Db } from '../../plugins/db.ts';

export interface WindowRow {
  id: string;
  title: string;
  starts_at: Date;
  ends_at: Date | null;
  rrule: string | null;
  duration_minutes: number | null;
  service_ids: string[];
  resource_ids: string[];
  notify_start_end: boolean;
  announced_start: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface WindowValues {
  title: string;
  starts_at: Date;
  ends_at: Date | null;
  rrule: string | null;
  duration_minutes: number | null;
  service_ids: string[];
  resource_ids: string[];
  notify_start_end: boolean;
}

const columns = [
  'id',
  'title',
  'starts_at',
  'ends_at',
  'rrule',
  'duration_minutes',
  'service_ids',
  'resource_ids',
  'notify_start_end',
  'announced_start',
  'created_at',
  'updated_at',
];

export async function listWindows(sql: Db): Promise<WindowRow[]> {
  return sql<WindowRow[]>`select ${sql(columns)} from maintenance_windows order by starts_at, id`;
}

export async function findWindow(sql: Db, id: string): Promise<WindowRow | undefined> {
  const [row] = await sql<WindowRow[]>`select ${sql(columns)} from maintenance_windows where id = ${id}`;
  return row;
}

export async function lockWindow(sql: Db, id: string): Promise<WindowRow | undefined> {
  const [row] = await sql<
    WindowRow[]
  >`select ${sql(columns)} from maintenance_windows where id = ${id} for update`;
  return row;
}

export async function insertWindow(sql: Db, values: WindowValues): Promise<WindowRow> {
  const [row] = await sql<WindowRow[]>`
    insert into maintenance_windows (title, starts_at, ends_at, rrule, duration_minutes, service_ids, resource_ids,
      notify_start_end)
    values (${values.title}, ${values.starts_at}, ${values.ends_at}, ${values.rrule}, ${values.duration_minutes},
      ${values.service_ids}::uuid[], ${values.resource_ids}::uuid[], ${values.notify_start_end})
    returning ${sql(columns)}`;
  return row;
}

export async function updateWindow(sql: Db, id: string, values: WindowValues): Promise<WindowRow> {
  const [row] = await sql<WindowRow[]>`
    update maintenance_windows set title = ${values.title}, starts_at = ${values.starts_at},
      ends_at = ${values.ends_at}, rrule = ${values.rrule}, duration_minutes = ${values.duration_minutes},
      service_ids = ${values.service_ids}::uuid[], resource_ids = ${values.resource_ids}::uuid[],
      notify_start_end = ${values.notify_start_end}, updated_at = now()
    where id = ${id}
    returning ${sql(columns)}`;
  return row;
}

export async function deleteWindow(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from maintenance_windows where id = ${id}`;
  return result.count > 0;
}

/** Those of `ids` with no row in `table` (services: candidates included, a window may cover one). */
export async function unknownIds(
  sql: Db,
  table: 'monitored_services' | 'resources',
  ids: string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await sql<{ id: string }[]>`
    select id::text from unnest(${ids}::uuid[]) as given (id)
    where not exists (select 1 from ${sql(table)} t where t.id = given.id)`;
  return rows.map((row) => row.id);
}

/** The services running on any of `resourceIds`. */
export async function servicesOnResources(sql: Db, resourceIds: string[]): Promise<string[]> {
  if (resourceIds.length === 0) return [];
  const rows = await sql<{ id: string }[]>`
    select id from monitored_services where resource_id = any(${resourceIds}::uuid[])`;
  return rows.map((row) => row.id);
}

/** Records the occurrence announced as started (null once its end is announced); false when another run did. */
export async function markAnnounced(
  sql: Db,
  id: string,
  from: Date | null,
  to: Date | null,
): Promise<boolean> {
  const result = await sql`
    update maintenance_windows set announced_start = ${to}
    where id = ${id} and announced_start is not distinct from ${from}`;
  return result.count > 0;
}
