import type { Db } from '../../plugins/db.ts';
import type { DeviceStatus } from './schema.ts';

export interface DeviceRow {
  mac: string;
  ip: string | null;
  hostname: string | null;
  name: string | null;
  vendor: string | null;
  random_mac: boolean;
  icon: string | null;
  notes: string | null;
  type: string | null;
  location: string | null;
  status: DeviceStatus;
  present: boolean;
  watch: boolean;
  owner_fields: string[];
  first_seen: Date;
  last_seen: Date | null;
}

const columns = [
  'mac',
  'ip',
  'hostname',
  'name',
  'vendor',
  'random_mac',
  'icon',
  'notes',
  'type',
  'location',
  'status',
  'present',
  'watch',
  'owner_fields',
  'first_seen',
  'last_seen',
];

export async function findDevice(sql: Db, mac: string): Promise<DeviceRow | undefined> {
  const [row] = await sql<DeviceRow[]>`select ${sql(columns)} from lan_devices where mac = ${mac}`;
  return row;
}

/** A manual add: known, not present until a scan sees it; null when the MAC exists. */
export async function insertDevice(
  sql: Db,
  device: {
    mac: string;
    ip: string | null;
    name: string | null;
    vendor: string | null;
    random_mac: boolean;
    owner_fields: string[];
  },
): Promise<DeviceRow | undefined> {
  const [row] = await sql<DeviceRow[]>`
    insert into lan_devices (mac, ip, name, vendor, random_mac, status, present, owner_fields)
    values (${device.mac}, ${device.ip}, ${device.name}, ${device.vendor}, ${device.random_mac}, 'known', false,
            ${device.owner_fields})
    on conflict (mac) do nothing
    returning ${sql(columns)}`;
  return row;
}

/**
 * Owner edits: the fields given, each recorded as owner-set (status is a review decision and watch an alerting
 * choice, neither a field a scan fills).
 */
export async function updateDevice(
  sql: Db,
  mac: string,
  fields: Partial<
    Pick<DeviceRow, 'name' | 'icon' | 'notes' | 'type' | 'location' | 'ip' | 'status' | 'watch'>
  >,
): Promise<DeviceRow | undefined> {
  const owned = Object.keys(fields).filter((field) => field !== 'status' && field !== 'watch');
  const [row] = await sql<DeviceRow[]>`
    update lan_devices set ${sql(fields)},
      owner_fields = array(select distinct unnest(owner_fields || ${owned}::text[]) order by 1),
      updated_at = now()
    where mac = ${mac}
    returning ${sql(columns)}`;
  return row;
}

export async function deleteDevice(sql: Db, mac: string): Promise<boolean> {
  const result = await sql`delete from lan_devices where mac = ${mac}`;
  return result.count > 0;
}

export interface DeviceFilter {
  status?: DeviceStatus;
  present?: boolean;
  q?: string;
  limit: number;
  offset: number;
}

/** The band list: new, then known, then ignored; by name (or host name), then IP. */
export async function listDevices(sql: Db, filter: DeviceFilter) {
  const like = filter.q ? `%${filter.q.replace(/[\\%_]/g, (char) => `\\${char}`)}%` : null;
  const where = sql`where true
    ${filter.status ? sql`and status = ${filter.status}` : sql``}
    ${filter.present === undefined ? sql`` : sql`and present = ${filter.present}`}
    ${
      like
        ? sql`and (name ilike ${like} or hostname ilike ${like} or ip ilike ${like} or mac ilike ${like}
                   or vendor ilike ${like})`
        : sql``
    }`;
  const items = await sql<DeviceRow[]>`
    select ${sql(columns)} from lan_devices ${where}
    order by case status when 'new' then 0 when 'known' then 1 else 2 end,
      lower(coalesce(name, hostname)) nulls last, inet(ip) nulls last, mac
    limit ${filter.limit} offset ${filter.offset}`;
  const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total from lan_devices ${where}`;
  return { items, total };
}

export interface SeenDevice {
  mac: string;
  ip: string;
  hostname: string | null;
  vendor: string | null;
  random_mac: boolean;
}

export interface ScannedDevice extends SeenDevice {
  added: boolean;
  /** The address before this scan, for a known device (null for a new one). */
  previous_ip: string | null;
}

/**
 * Applies one scan: seen devices are added as `new` or refreshed (address, host name, last seen, present), never
 * touching a field the owner set; devices not seen become absent. Returns how many were added, and each seen device
 * as stored with its address before the scan (what new-device and address-change alerts are made of).
 */
export async function applyScan(
  sql: Db,
  seen: SeenDevice[],
): Promise<{ added: number; absent: number; devices: ScannedDevice[] }> {
  const macs = seen.map((device) => device.mac);
  const rows = await sql<ScannedDevice[]>`
    with before as (select mac, ip from lan_devices where mac = any(${macs}::text[]))
    insert into lan_devices (mac, ip, hostname, vendor, random_mac, status, present, first_seen, last_seen)
    select mac, ip, hostname, vendor, random_mac, 'new', true, now(), now()
    from jsonb_to_recordset(${sql.json(seen as never)}::jsonb)
      as s(mac text, ip text, hostname text, vendor text, random_mac boolean)
    on conflict (mac) do update set
      ip = case when 'ip' = any(lan_devices.owner_fields) then lan_devices.ip else excluded.ip end,
      hostname = coalesce(excluded.hostname, lan_devices.hostname),
      vendor = coalesce(excluded.vendor, lan_devices.vendor),
      random_mac = excluded.random_mac,
      present = true,
      last_seen = now(),
      updated_at = now()
    returning mac, ip, hostname, vendor, random_mac, (xmax = 0) as added,
      (select b.ip from before b where b.mac = lan_devices.mac) as previous_ip`;
  const gone = await sql`
    update lan_devices set present = false, updated_at = now()
    where present and not (mac = any(${macs}::text[]))`;
  return { added: rows.filter((row) => row.added).length, absent: gone.count, devices: [...rows] };
}

export interface WatchedDevice {
  mac: string;
  ip: string | null;
  name: string | null;
  hostname: string | null;
  vendor: string | null;
  present: boolean;
  last_seen: Date | null;
  /** Absent for `offlineMinutes` or more (since its last sighting, or since it was added when never seen). */
  offline: boolean;
}

/** The devices the owner watches, and whether each has been absent long enough to count as offline. */
export async function watchedDevices(sql: Db, offlineMinutes: number): Promise<WatchedDevice[]> {
  return sql<WatchedDevice[]>`
    select mac, ip, name, hostname, vendor, present, last_seen,
      not present and coalesce(last_seen, first_seen) <= now() - make_interval(mins => ${offlineMinutes}) as offline
    from lan_devices where watch
    order by mac`;
}
