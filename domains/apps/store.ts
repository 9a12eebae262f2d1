// Apps in SQL. A group's positions stay contiguous (0..n-1): every change to a group holds its lock, and the unique
// (group, position) constraint is deferred so a renumbering is checked at commit.
import { hasTag } from '../../lib/tags.ts';
import type { Db } from '../../plugins/db.ts';
import type { AppStatus } from './schema.ts';

export interface AppRow {
  id: string;
  name: string;
  href: string;
  description: string;
  icon: string | null;
  group: string;
  position: number;
  service_id: string | null;
  device_mac: string | null;
  tags: string[];
  status: AppStatus;
  latency_ms: number | null;
  container: { state: string; health: 'healthy' | 'unhealthy' | 'starting' | null } | null;
  has_favicon: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface AppFields {
  name: string;
  href: string;
  description: string;
  icon: string | null;
  group: string;
  service_id: string | null;
  device_mac: string | null;
  tags?: string[];
}

/**
 * An app with its service's cached state (paused when the service is disabled, unknown without one) and, for an app
 * promoted from a Docker container, that container's state as the last sync saw it.
 */
function selectApps(sql: Db) {
  return sql`
    select a.id, a.name, a.href, a.description, a.icon, a.group_name as "group", a.position, a.service_id,
      a.device_mac, a.tags, a.created_at, a.updated_at, (a.favicon is not null) as has_favicon,
      case when s.id is null then 'unknown' when not s.enabled then 'paused' else s.state end as status,
      case when s.enabled then s.latency_ms end as latency_ms,
      case when d.id is not null then json_build_object('state', d.state, 'health', d.health) end as container
    from apps a left join monitored_services s on s.id = a.service_id
      left join docker_candidates d on d.app_id = a.id`;
}

/** Groups in the order of their first app, then positions. */
const listOrder = (sql: Db) => sql`
  order by min(a.seq) over (partition by a.group_name), a.group_name, a.position, a.id`;

export async function listApps(
  sql: Db,
  filter: { group?: string; q?: string; tag?: string; limit: number; offset: number },
): Promise<{ items: AppRow[]; total: number }> {
  const like = filter.q ? `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const tagged = filter.tag ? sql`and ${hasTag(sql, sql`a.tags`, filter.tag)}` : sql``;
  const rows = await sql<(AppRow & { total: number })[]>`
    select * from (
      select *, count(*) over ()::int as total from (
        ${selectApps(sql)}
        where true
          ${filter.group ? sql`and a.group_name = ${filter.group}` : sql``}
          ${like ? sql`and (a.name ilike ${like} or a.description ilike ${like} or a.href ilike ${like} or a.group_name ilike ${like})` : sql``}
          ${tagged}
        ${listOrder(sql)}
      ) ordered
    ) counted
    limit ${filter.limit} offset ${filter.offset}`;
  const total = rows[0]?.total ?? (filter.offset > 0 ? await countApps(sql, filter.group, like, tagged) : 0);
  return { items: rows.map(({ total: _total, ...row }) => row), total };
}

async function countApps(
  sql: Db,
  group: string | undefined,
  like: string | null,
  tagged: ReturnType<typeof hasTag>,
): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from apps a
    where true ${group ? sql`and a.group_name = ${group}` : sql``}
      ${like ? sql`and (a.name ilike ${like} or a.description ilike ${like} or a.href ilike ${like} or a.group_name ilike ${like})` : sql``}
      ${tagged}`;
  return row.count;
}

export async function findApp(sql: Db, id: string): Promise<AppRow | undefined> {
  const [row] = await sql<AppRow[]>`${selectApps(sql)} where a.id = ${id}`;
  return row;
}

/** The app of a group and name (the Homepage import matches on both). */
export async function findAppByName(sql: Db, group: string, name: string): Promise<AppRow | undefined> {
  const [row] = await sql<AppRow[]>`${selectApps(sql)} where a.group_name = ${group} and a.name = ${name}
    order by a.position limit 1`;
  return row;
}

/** Serialises every change to one group's positions until the transaction ends. */
export async function lockGroup(sql: Db, group: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`apps:${group}`}))`;
}

export async function lockApp(sql: Db, id: string): Promise<{ id: string; group: string } | undefined> {
  const [row] = await sql<{ id: string; group: string }[]>`
    select id, group_name as "group" from apps where id = ${id} for update`;
  return row;
}

/** The ids of a group in position order, without `exceptId`. */
export async function groupIds(sql: Db, group: string, exceptId: string | null = null): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from apps where group_name = ${group} ${exceptId ? sql`and id <> ${exceptId}` : sql``}
    order by position, name, id`;
  return rows.map((row) => row.id);
}

/** Numbers the apps 0..n-1 in the order given (all of one group). */
export async function renumber(sql: Db, orderedIds: string[]): Promise<void> {
  if (orderedIds.length === 0) return;
  await sql`
    update apps set position = array_position(${orderedIds}::uuid[], id) - 1
    where id = any(${orderedIds}::uuid[]) and position <> array_position(${orderedIds}::uuid[], id) - 1`;
}

export async function insertApp(sql: Db, fields: AppFields, position: number): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into apps (name, href, description, icon, group_name, position, service_id, device_mac, tags)
    values (${fields.name}, ${fields.href}, ${fields.description}, ${fields.icon}, ${fields.group}, ${position},
      ${fields.service_id}, ${fields.device_mac}, ${fields.tags ?? []})
    returning id`;
  return row.id;
}

const columnOf = {
  name: 'name',
  href: 'href',
  description: 'description',
  icon: 'icon',
  group: 'group_name',
  service_id: 'service_id',
  device_mac: 'device_mac',
  tags: 'tags',
} as const;

/** Sets the fields given (and the time); a new href forgets the favicon found for the old one. */
export async function updateApp(sql: Db, id: string, fields: Partial<AppFields>): Promise<void> {
  const set = Object.fromEntries(
    Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [columnOf[key as keyof AppFields], value]),
  );
  if (fields.href !== undefined) {
    await sql`update apps set favicon = null, favicon_checked_at = null
      where id = ${id} and href is distinct from ${fields.href}`;
  }
  if (Object.keys(set).length > 0) await sql`update apps set ${sql(set)} where id = ${id}`;
  await sql`update apps set updated_at = now() where id = ${id}`;
}

export async function deleteApp(sql: Db, id: string): Promise<void> {
  await sql`delete from apps where id = ${id}`;
}

export async function serviceExists(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql`select 1 from monitored_services where id = ${id} and not discovered`;
  return row !== undefined;
}

export async function deviceExists(sql: Db, mac: string): Promise<boolean> {
  const [row] = await sql`select 1 from lan_devices where mac = ${mac}`;
  return row !== undefined;
}

/** The favicon found for an app (null: none), and whether one was looked for; undefined when there is no app. */
export async function faviconOf(
  sql: Db,
  id: string,
): Promise<{ href: string; icon: string | null; favicon: Buffer | null; checked: boolean } | undefined> {
  const [row] = await sql<{ href: string; icon: string | null; favicon: Buffer | null; checked: boolean }[]>`
    select href, icon, favicon, favicon_checked_at is not null as checked from apps where id = ${id}`;
  return row;
}

/** Records what a look for the favicon of `href` found, unless the app moved to another href meanwhile. */
export async function saveFavicon(sql: Db, id: string, href: string, favicon: Buffer | null): Promise<void> {
  await sql`
    update apps set favicon = ${favicon}, favicon_checked_at = now() where id = ${id} and href = ${href}`;
}
