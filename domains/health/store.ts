import type { Db } from '../../plugins/db.ts';
import type { CheckOutcome, CheckTarget } from './checks.ts';
import type { BasicAuth, Definition, Headers, Secrets } from './definition.ts';
import type { Details, ServiceState } from './schema.ts';

export interface ServiceRow extends Definition {
  id: string;
  /** Whether basic-auth credentials are stored (the credentials themselves are read only to run a check). */
  basic_auth_set: boolean;
  /** The names of the request headers an http check sends (their values are read only to run a check). */
  header_names: string[];
  discovered: boolean;
  /** What the last check found beyond pass or fail. */
  details: Details | null;
  state: ServiceState;
  latency_ms: number | null;
  checked_at: Date | null;
  since: Date | null;
  message: string | null;
  failures: number;
  uptime_24h: number | null;
  created_at: Date;
  updated_at: Date;
}

export type CandidateRow = ServiceRow & { device_name: string | null };

const definitionColumns = [
  'name',
  'category',
  'kind',
  'url',
  'host',
  'port',
  'status_min',
  'status_max',
  'keyword',
  'method',
  'body',
  'json_query',
  'packets',
  'dns_name',
  'dns_type',
  'expect',
  'warn_days',
  'slow_ms',
  'follow_redirects',
  'verify_tls',
  'interval_s',
  'timeout_ms',
  'retries',
  'enabled',
  'external',
  'icon',
  'link',
  'device_mac',
  'notes',
  'target',
] as const;

const columns = [
  'id',
  ...definitionColumns,
  'discovered',
  'state',
  'latency_ms',
  'checked_at',
  'since',
  'message',
  'details',
  'failures',
  'created_at',
  'updated_at',
];

function definitionOf(sql: Db, definition: Definition) {
  return Object.fromEntries(
    definitionColumns.map((column) => [
      column,
      column === 'json_query' && definition.json_query
        ? sql.json({ ...definition.json_query })
        : definition[column],
    ]),
  );
}

// A check's basic-auth credentials are written and read only through these two, and never selected for display:
// the one place their storage changes (encryption at rest, say).
function credentialColumns(credentials: BasicAuth | null) {
  return {
    basic_auth_username: credentials?.username ?? null,
    basic_auth_password: credentials?.password ?? null,
  };
}

/** The secret columns a write changes: those it names, the others left as stored. */
function secretColumns(sql: Db, { credentials, headers }: Secrets) {
  return {
    ...(credentials === undefined ? {} : credentialColumns(credentials)),
    ...(headers === undefined
      ? {}
      : { headers: headers && Object.keys(headers).length ? sql.json(headers) : null }),
  };
}

function credentialsOf(row: { basic_auth_username: string | null; basic_auth_password: string | null }) {
  return row.basic_auth_username === null && row.basic_auth_password === null
    ? null
    : { username: row.basic_auth_username ?? '', password: row.basic_auth_password ?? '' };
}

const credentialsSet = (sql: Db) => sql`(s.basic_auth_username is not null) as basic_auth_set,
  coalesce(array(select jsonb_object_keys(s.headers) order by 1), '{}') as header_names`;

// The share of passing checks in per cent over the last `period`, null without checks.
const uptime = (sql: Db, period: string) => sql`(
  select round(100.0 * avg(ok::int), 2)::float8 from health_results r
  where r.service_id = s.id and r.checked_at > now() - ${period}::interval)`;

function selectServices(sql: Db) {
  return sql`select ${sql(columns.map((column) => `s.${column}`))}, ${credentialsSet(sql)},
      ${uptime(sql, '24 hours')} as uptime_24h
    from monitored_services s`;
}

/** The registry (candidates excluded), by category then name. */
export async function listServices(
  sql: Db,
  filter: { category?: string; includeDisabled: boolean },
): Promise<ServiceRow[]> {
  return sql<ServiceRow[]>`${selectServices(sql)}
    where not s.discovered
      ${filter.category ? sql`and s.category = ${filter.category}` : sql``}
      ${filter.includeDisabled ? sql`` : sql`and s.enabled`}
    order by lower(s.category), lower(s.name), s.id`;
}

export async function findService(sql: Db, id: string): Promise<ServiceRow | undefined> {
  const [row] = await sql<ServiceRow[]>`${selectServices(sql)} where s.id = ${id}`;
  return row;
}

export async function lockService(sql: Db, id: string): Promise<ServiceRow | undefined> {
  const [row] = await sql<ServiceRow[]>`${selectServices(sql)} where s.id = ${id} for update of s`;
  return row;
}

/** The service already checking `target`, other than `exceptId`. */
export async function serviceWithTarget(sql: Db, target: string, exceptId: string | null = null) {
  const [row] = await sql<{ id: string; discovered: boolean }[]>`
    select id, discovered from monitored_services
    where target = ${target} ${exceptId ? sql`and id <> ${exceptId}` : sql``}`;
  return row;
}

/** A new curated service, or undefined when its target is taken. */
export async function insertService(
  sql: Db,
  definition: Definition,
  secrets: Secrets,
): Promise<string | undefined> {
  const values = {
    ...definitionOf(sql, definition),
    ...secretColumns(sql, { credentials: secrets.credentials ?? null, headers: secrets.headers ?? null }),
  };
  const [row] = await sql<{ id: string }[]>`
    insert into monitored_services ${sql(values)}
    on conflict (target) do nothing
    returning id`;
  return row?.id;
}

/**
 * A new definition; a changed target (or a service turned off and on) starts its state afresh. Credentials and
 * headers left undefined stay as they are.
 */
export async function replaceService(
  sql: Db,
  id: string,
  definition: Definition,
  secrets: Secrets,
): Promise<void> {
  const values = { ...definitionOf(sql, definition), ...secretColumns(sql, secrets) };
  await sql`
    update monitored_services set ${sql(values)},
      state = case when target <> ${definition.target} or enabled <> ${definition.enabled} then 'pending'
                   else state end,
      failures = case when target <> ${definition.target} then 0 else failures end,
      updated_at = now()
    where id = ${id}`;
}

export async function deleteService(sql: Db, id: string, discovered = false): Promise<boolean> {
  const result = await sql`delete from monitored_services where id = ${id} and discovered = ${discovered}`;
  return result.count > 0;
}

/** A service to check: what the check needs, and what names and schedules it. */
export type DueService = CheckTarget &
  Pick<ServiceRow, 'id' | 'name' | 'category' | 'retries' | 'interval_s' | 'target' | 'slow_ms'>;

/** Enabled services to check now: those named, or (due) those whose interval has passed, or all. */
export async function servicesToCheck(
  sql: Db,
  filter: { ids?: string[]; due?: boolean },
): Promise<DueService[]> {
  const rows = await sql<
    (Omit<DueService, 'basic_auth' | 'headers'> & {
      basic_auth_username: string | null;
      basic_auth_password: string | null;
      headers: Headers | null;
    })[]
  >`
    select id, name, category, kind, url, host, port, status_min, status_max, keyword, method, headers, body,
      json_query, packets, dns_name, dns_type, expect, warn_days, slow_ms, follow_redirects, verify_tls,
      timeout_ms, retries, interval_s, target, basic_auth_username, basic_auth_password
    from monitored_services
    where enabled
      ${filter.ids ? sql`and id = any(${filter.ids}::uuid[])` : sql``}
      ${
        filter.due
          ? sql`and (checked_at is null or checked_at + make_interval(secs => interval_s) <= now() + interval '1 second')`
          : sql``
      }
    order by checked_at nulls first, id`;
  return rows.map(({ basic_auth_username, basic_auth_password, headers, ...service }) => ({
    ...service,
    headers: headers ?? {},
    basic_auth: credentialsOf({ basic_auth_username, basic_auth_password }),
  }));
}

/** When the next enabled service falls due, or null when none is enabled. */
export async function nextDue(sql: Db): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`
    select min(coalesce(checked_at + make_interval(secs => interval_s), now())) as at
    from monitored_services where enabled`;
  return row?.at ?? null;
}

export interface Recorded {
  from: ServiceState;
  to: ServiceState;
  changed: boolean;
}

/**
 * Keeps one check: its result, the cached status and, when the state changed, an event. The state is computed from
 * the locked row, so two runs checking one service at once still count failures one after the other.
 */
export async function recordCheck(
  sql: Db,
  id: string,
  outcome: CheckOutcome,
  next: (previous: { state: ServiceState; failures: number }) => { state: ServiceState; failures: number },
): Promise<(Recorded & { name: string }) | undefined> {
  const [current] = await sql<{ state: ServiceState; failures: number; name: string }[]>`
    select state, failures, name from monitored_services where id = ${id} for update`;
  if (!current) return undefined;
  const standing = next(current);
  const changed = standing.state !== current.state;
  const details = outcome.details ? sql.json(outcome.details as never) : null;
  await sql`
    insert into health_results (service_id, ok, state, latency_ms, message, details)
    values (${id}, ${outcome.ok}, ${standing.state}, ${outcome.latency_ms}, ${outcome.message}, ${details})`;
  await sql`
    update monitored_services set state = ${standing.state}, failures = ${standing.failures},
      latency_ms = ${outcome.latency_ms}, message = ${outcome.message}, details = ${details}, checked_at = now(),
      since = case when ${changed} or since is null then now() else since end
    where id = ${id}`;
  if (changed) {
    await sql`
      insert into health_events (service_id, service_name, from_state, to_state, message)
      values (${id}, ${current.name}, ${current.state}, ${standing.state}, ${outcome.message})`;
  }
  return { from: current.state, to: standing.state, changed, name: current.name };
}

export async function pruneResults(sql: Db, days: number): Promise<number> {
  const result =
    await sql`delete from health_results where checked_at < now() - make_interval(days => ${days})`;
  return result.count;
}

export async function checkHistory(
  sql: Db,
  id: string,
  since: Date | null,
  page: { limit: number; offset: number },
) {
  const checks = await sql<
    {
      checked_at: Date;
      ok: boolean;
      state: ServiceState;
      latency_ms: number | null;
      message: string | null;
      details: Details | null;
    }[]
  >`
    select checked_at, ok, state, latency_ms, message, details from health_results
    where service_id = ${id} ${since ? sql`and checked_at >= ${since}` : sql``}
    order by checked_at desc limit ${page.limit} offset ${page.offset}`;
  const [row] = await sql<{ d1: number | null; d7: number | null; d30: number | null }[]>`
    select
      round(100.0 * avg(ok::int) filter (where checked_at > now() - interval '24 hours'), 2)::float8 as d1,
      round(100.0 * avg(ok::int) filter (where checked_at > now() - interval '7 days'), 2)::float8 as d7,
      round(100.0 * avg(ok::int), 2)::float8 as d30
    from health_results where service_id = ${id} and checked_at > now() - interval '30 days'`;
  return { checks, uptime: { '24h': row.d1, '7d': row.d7, '30d': row.d30 } };
}

export async function listEvents(sql: Db, filter: { serviceId?: string; limit: number; offset: number }) {
  const where = sql`${filter.serviceId ? sql`where service_id = ${filter.serviceId}` : sql``}`;
  const items = await sql<
    {
      id: string;
      service_id: string | null;
      service_name: string;
      from_state: ServiceState;
      to_state: ServiceState;
      message: string | null;
      at: Date;
    }[]
  >`
    select id, service_id, service_name, from_state, to_state, message, at from health_events ${where}
    order by at desc, id limit ${filter.limit} offset ${filter.offset}`;
  const [{ total }] = await sql<
    { total: number }[]
  >`select count(*)::int as total from health_events ${where}`;
  return { items, total };
}

/** Discovered candidates, each with the name of the known device at its address. */
export async function listCandidates(sql: Db): Promise<CandidateRow[]> {
  return sql<CandidateRow[]>`
    select ${sql(columns.map((column) => `s.${column}`))}, ${credentialsSet(sql)}, null::float8 as uptime_24h,
      (select coalesce(d.name, d.hostname) from lan_devices d
        where d.ip = s.host and d.status <> 'ignored' and coalesce(d.name, d.hostname) is not null
        order by d.status = 'known' desc, d.last_seen desc nulls last limit 1) as device_name
    from monitored_services s
    where s.discovered
    order by inet(s.host) nulls last, s.port, s.id`;
}

/**
 * A sweep's finding: added as a disabled, discovered candidate, or refreshed when it is one already. A curated
 * service with the same target is never touched, and a dismissed target is not proposed again.
 */
export async function upsertCandidate(
  sql: Db,
  definition: Definition,
): Promise<'added' | 'updated' | 'skipped'> {
  const [dismissed] = await sql`select 1 from health_dismissed where target = ${definition.target}`;
  if (dismissed) return 'skipped';
  const values = definitionOf(sql, { ...definition, enabled: false });
  const [row] = await sql<{ added: boolean }[]>`
    insert into monitored_services ${sql({ ...values, discovered: true })}
    on conflict (target) do update set
      name = excluded.name, category = excluded.category, kind = excluded.kind, url = excluded.url,
      host = excluded.host, port = excluded.port, icon = excluded.icon, updated_at = now()
    where monitored_services.discovered
    returning (xmax = 0) as added`;
  if (!row) return 'skipped';
  return row.added ? 'added' : 'updated';
}

/** Makes a candidate a curated, enabled service. */
export async function promoteCandidate(
  sql: Db,
  id: string,
  fields: { name?: string; category?: string; icon?: string | null },
): Promise<boolean> {
  const result = await sql`
    update monitored_services set ${sql({ ...fields, discovered: false, enabled: true, state: 'pending', failures: 0 })},
      updated_at = now()
    where id = ${id} and discovered`;
  return result.count > 0;
}

/** Removes a candidate and remembers its target, so no later sweep proposes it again. */
export async function dismissCandidate(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql<{ target: string }[]>`
    delete from monitored_services where id = ${id} and discovered returning target`;
  if (!row) return false;
  await sql`insert into health_dismissed (target) values (${row.target}) on conflict (target) do nothing`;
  return true;
}
