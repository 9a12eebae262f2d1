import type { Db } from '../../plugins/db.ts';
import type { CheckOutcome, CheckTarget } from './checks.ts';
import type { Definition, Headers } from './definition.ts';
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
  last_push_at: Date | null;
  push_started_at: Date | null;
  failures: number;
  uptime_24h: number | null;
  /** The service whose alert announced this one's current downtime (itself, or the root it was folded into). */
  down_alert: string | null;
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
  'grace_s',
  'timeout_ms',
  'retries',
  'enabled',
  'external',
  'icon',
  'link',
  'device_mac',
  'notes',
  'resource_id',
  'host_check',
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
  'last_push_at',
  'push_started_at',
  'details',
  'failures',
  'down_alert',
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

/** A check's credentials as stored: the user name, and the password sealed under the hub's key (credentials.ts). */
export interface StoredCredentials {
  username: string;
  sealed: string;
}

/** The credential columns of a row: `basic_auth_password` is the plaintext kept before sealing, until start seals it. */
export interface CredentialColumns {
  basic_auth_username: string | null;
  basic_auth_sealed: string | null;
  basic_auth_password: string | null;
}

// A check's basic-auth credentials are written and read only through these, and never selected for display.
function credentialColumns(credentials: StoredCredentials | null): CredentialColumns {
  return {
    basic_auth_username: credentials?.username ?? null,
    basic_auth_sealed: credentials?.sealed ?? null,
    basic_auth_password: null,
  };
}

/** A write's secrets as stored: the credentials and each header's value sealed; undefined leaves what is stored. */
export interface StoredSecrets {
  credentials?: StoredCredentials | null;
  headers?: SealedHeaders | null;
}

/** Header names with their values sealed under the hub's key (credentials.ts). */
export type SealedHeaders = Record<string, string>;

/** The secret columns a write changes: those it names, the others left as stored. */
function secretColumns(sql: Db, { credentials, headers }: StoredSecrets) {
  return {
    ...(credentials === undefined ? {} : credentialColumns(credentials)),
    ...(headers === undefined
      ? {}
      : { headers: null, headers_sealed: headers && Object.keys(headers).length ? sql.json(headers) : null }),
  };
}

const credentialsSet = (sql: Db) => sql`(s.basic_auth_username is not null) as basic_auth_set,
  coalesce(array(select jsonb_object_keys(coalesce(s.headers_sealed, s.headers)) order by 1), '{}') as header_names`;

// The share of passing checks in per cent over the last `period`, null without checks. Checks made during
// maintenance do not count.
const uptime = (sql: Db, period: string) => sql`(
  select round(100.0 * avg(ok::int), 2)::float8 from health_results r
  where r.service_id = s.id and r.checked_at > now() - ${period}::interval and not r.maintenance)`;

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
  id: string,
  definition: Definition,
  secrets: StoredSecrets,
): Promise<string | undefined> {
  const values = {
    id,
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
  secrets: StoredSecrets,
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

/** A service to check as stored: its credentials still sealed (`headers`: plaintext kept before sealing). */
export type DueRow = Omit<DueService, 'basic_auth' | 'headers'> &
  CredentialColumns & { headers: Headers | null; headers_sealed: SealedHeaders | null };

/** Enabled services to check now: those named, or (due) those whose interval has passed, or all. */
export async function servicesToCheck(sql: Db, filter: { ids?: string[]; due?: boolean }): Promise<DueRow[]> {
  return sql<DueRow[]>`
    select id, name, category, kind, url, host, port, status_min, status_max, keyword, method, headers, headers_sealed,
      body, json_query, packets, dns_name, dns_type, expect, warn_days, slow_ms, follow_redirects, verify_tls,
      timeout_ms, retries, interval_s, target, basic_auth_username, basic_auth_sealed, basic_auth_password
    from monitored_services
    where enabled and kind <> 'push'
      ${filter.ids ? sql`and id = any(${filter.ids}::uuid[])` : sql``}
      ${
        filter.due
          ? sql`and (checked_at is null or checked_at + make_interval(secs => interval_s) <= now() + interval '1 second')`
          : sql``
      }
    order by checked_at nulls first, id`;
}

/** Passwords stored before they were sealed, locked until the transaction ends. */
export async function plaintextPasswords(sql: Db): Promise<{ id: string; password: string }[]> {
  return sql<{ id: string; password: string }[]>`
    select id, basic_auth_password as password from monitored_services
    where basic_auth_password is not null order by id for update`;
}

/** Headers stored before they were sealed, locked until the transaction ends. */
export async function plaintextHeaders(sql: Db): Promise<{ id: string; headers: Headers }[]> {
  return sql<{ id: string; headers: Headers }[]>`
    select id, headers from monitored_services where headers is not null order by id for update`;
}

export async function replacePlaintextHeaders(sql: Db, id: string, sealed: SealedHeaders): Promise<void> {
  await sql`update monitored_services set headers_sealed = ${sql.json(sealed)}, headers = null where id = ${id}`;
}

export async function replacePlaintextPassword(sql: Db, id: string, sealed: string): Promise<void> {
  await sql`
    update monitored_services set basic_auth_sealed = ${sealed}, basic_auth_password = null where id = ${id}`;
}

/** When the next enabled service falls due, or null when none is enabled. */
export async function nextDue(sql: Db): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`
    select min(coalesce(checked_at + make_interval(secs => interval_s), now())) as at
    from monitored_services where enabled and kind <> 'push'`;
  return row?.at ?? null;
}

export interface Recorded {
  from: ServiceState;
  to: ServiceState;
  changed: boolean;
  /** When the state before this check began (an outage's start, for a recovery). */
  fromSince: Date | null;
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
  maintenanceId: string | null = null,
): Promise<(Recorded & { name: string }) | undefined> {
  const [current] = await sql<
    { state: ServiceState; failures: number; name: string; since: Date | null }[]
  >`select state, failures, name, since from monitored_services where id = ${id} and enabled for update`;
  // A service paused (or turned off) while its check ran keeps its state: the result is dropped.
  if (!current) return undefined;
  const standing = next(current);
  const changed = standing.state !== current.state;
  const details = outcome.details ? sql.json(outcome.details as never) : null;
  await sql`
    insert into health_results (service_id, ok, state, latency_ms, message, details, maintenance)
    values (${id}, ${outcome.ok}, ${standing.state}, ${outcome.latency_ms}, ${outcome.message}, ${details},
      ${maintenanceId !== null})`;
  await sql`
    update monitored_services set state = ${standing.state}, failures = ${standing.failures},
      latency_ms = ${outcome.latency_ms}, message = ${outcome.message}, details = ${details}, checked_at = now(),
      since = case when ${changed} or since is null then now() else since end
    where id = ${id}`;
  if (changed) {
    await sql`
      insert into health_events (service_id, service_name, from_state, to_state, message, maintenance_id)
      values (${id}, ${current.name}, ${current.state}, ${standing.state}, ${outcome.message}, ${maintenanceId})`;
  }
  return { from: current.state, to: standing.state, changed, name: current.name, fromSince: current.since };
}

/**
 * Pauses or resumes a locked service: its state, cleared failures and, as for a check, an event saying why.
 * Paused, it is turned off (no check, no heartbeat accepted); resumed, it is on again and pending its first check.
 */
export async function setPaused(
  sql: Db,
  service: Pick<ServiceRow, 'id' | 'name' | 'state'>,
  paused: boolean,
  reason: string,
): Promise<void> {
  const state: ServiceState = paused ? 'paused' : 'pending';
  await sql`
    update monitored_services set enabled = ${!paused}, state = ${state}, failures = 0, message = ${reason},
      since = now(), updated_at = now(), push_started_at = null,
      -- A push service resumed has a full interval (and grace) for its first heartbeat.
      checked_at = case when kind = 'push' and ${!paused} then now() else checked_at end
    where id = ${service.id}`;
  await sql`
    insert into health_events (service_id, service_name, from_state, to_state, message)
    values (${service.id}, ${service.name}, ${service.state}, ${state}, ${reason})`;
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
    from health_results where service_id = ${id} and checked_at > now() - interval '30 days' and not maintenance`;
  return {
    checks,
    uptime: { '24h': row.d1, '7d': row.d7, '30d': row.d30 },
    log: await pushLog(sql, id),
  };
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
      suppressed_by: string | null;
      maintenance_id: string | null;
      at: Date;
    }[]
  >`
    select id, service_id, service_name, from_state, to_state, message, suppressed_by, maintenance_id, at
    from health_events ${where}
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

export async function resourceExists(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql`select 1 from resources where id = ${id}`;
  return row !== undefined;
}

/** A service as outage folding judges it. */
export interface OutageService {
  id: string;
  name: string;
  category: string;
  state: ServiceState;
  enabled: boolean;
  resource_id: string | null;
  device_mac: string | null;
  host_check: boolean;
  down_alert: string | null;
  since: Date | null;
  message: string | null;
  where: string;
}

/** Every curated service, for judging outages together. */
export async function outageServices(sql: Db): Promise<OutageService[]> {
  return sql<OutageService[]>`
    select id, name, category, state, enabled, resource_id, device_mac, host_check, down_alert, since, message,
      coalesce(url, host || ':' || port) as where
    from monitored_services where not discovered
    order by lower(name), id`;
}

/** The resource graph: each resource with those it depends on. */
export async function resourceDependencies(sql: Db): Promise<Map<string, string[]>> {
  const rows = await sql<{ resource_id: string; depends_on: string[] }[]>`
    select resource_id, array_agg(depends_on_id order by depends_on_id) as depends_on
    from resource_dependencies group by resource_id`;
  return new Map(rows.map((row) => [row.resource_id, row.depends_on]));
}

/** Serialises outage judgements (two check runs ending together would otherwise both alert). */
export async function lockOutages(sql: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('health.outages'))`;
}

export async function setDownAlert(sql: Db, ids: string[], alertedBy: string | null): Promise<void> {
  if (ids.length === 0) return;
  await sql`update monitored_services set down_alert = ${alertedBy} where id = any(${ids}::uuid[])`;
}

/** Marks the latest change of each service to `toState` as folded into `rootId`'s alert. */
export async function suppressLatestEvents(
  sql: Db,
  ids: string[],
  toState: ServiceState,
  rootId: string,
): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    update health_events e set suppressed_by = ${rootId}
    where e.id in (
      select distinct on (service_id) id from health_events
      where service_id = any(${ids}::uuid[]) and to_state = ${toState}
      order by service_id, at desc, id)`;
}

/** When the service last went down, for the length of an outage. */
export async function downSince(sql: Db, id: string): Promise<Date | null> {
  const [row] = await sql<{ at: Date }[]>`
    select at from health_events where service_id = ${id} and to_state = 'down' order by at desc limit 1`;
  return row?.at ?? null;
}

/** Gives a push service a new heartbeat token (its hash): the old one stops working. */
export async function setPushToken(sql: Db, id: string, hash: Buffer | null): Promise<void> {
  await sql`update monitored_services set push_token_hash = ${hash} where id = ${id}`;
}

export async function hasPushToken(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql`select 1 from monitored_services where id = ${id} and push_token_hash is not null`;
  return row !== undefined;
}

/** What a heartbeat needs of its enabled push service, found by the token's hash. */
export interface PushService {
  id: string;
  name: string;
  category: string;
  retries: number;
}

export async function pushServiceByToken(sql: Db, hash: Buffer): Promise<PushService | undefined> {
  const [row] = await sql<PushService[]>`
    select id, name, category, retries from monitored_services
    where push_token_hash = ${hash} and kind = 'push' and enabled`;
  return row;
}

/** After a heartbeat was recorded: it is the last one. */
export async function heartbeatReceived(sql: Db, id: string): Promise<void> {
  await sql`update monitored_services set last_push_at = now() where id = ${id}`;
}

/**
 * A `start`: the run it opens must finish within grace_s. A start without rid is the service's one open start; a
 * start with a rid opens a run of its own (a repeated rid starts over).
 */
export async function pushStarted(sql: Db, id: string, rid: string | null): Promise<void> {
  if (rid === null) {
    await sql`update monitored_services set push_started_at = now() where id = ${id}`;
    return;
  }
  await sql`
    insert into push_runs (service_id, rid) values (${id}, ${rid})
    on conflict (service_id, rid) do update set started_at = now()`;
}

/**
 * A finish ends the start of its rid (or, without rid, the one without): returns how long that run took in ms, or
 * null when no such start was open. Other open runs stay open.
 */
export async function endPushStart(sql: Db, id: string, rid: string | null): Promise<number | null> {
  const [ended] =
    rid === null
      ? await sql<{ ms: number | null }[]>`
          update monitored_services s set push_started_at = null
          from (select push_started_at from monitored_services where id = ${id} for update) open
          where s.id = ${id}
          returning round(extract(epoch from now() - open.push_started_at) * 1000)::int as ms`
      : await sql<{ ms: number | null }[]>`
          delete from push_runs where service_id = ${id} and rid = ${rid}
          returning round(extract(epoch from now() - started_at) * 1000)::int as ms`;
  return ended?.ms ?? null;
}

/** How many log messages of a push service are kept: the newest. */
export const pushLogKept = 100;

/** Keeps a log message of a push service and drops those past the newest pushLogKept. */
export async function appendPushLog(sql: Db, serviceId: string, message: string): Promise<void> {
  await sql`insert into push_log (service_id, message) values (${serviceId}, ${message})`;
  await sql`
    delete from push_log where service_id = ${serviceId} and id <= (
      select id from push_log where service_id = ${serviceId} order by id desc offset ${pushLogKept} limit 1)`;
}

/** The log messages of a push service, newest first. */
export async function pushLog(sql: Db, serviceId: string): Promise<{ at: Date; message: string }[]> {
  return sql<{ at: Date; message: string }[]>`
    select at, message from push_log where service_id = ${serviceId} order by id desc`;
}

/**
 * Enabled push services overdue now: a start open longer than grace_s (`unfinished`), or nothing recorded (a
 * heartbeat, or a missed one) for interval_s plus grace_s since the last result or, before any, since creation.
 * Recording the miss moves checked_at, so a silent service counts one failure per interval.
 */
export async function overduePushServices(sql: Db, ids?: string[]) {
  return sql<
    (PushService & { unfinished: boolean; late_rid: string | null; interval_s: number; grace_s: number })[]
  >`
    select id, name, category, retries, interval_s, grace_s,
      coalesce(push_started_at + make_interval(secs => grace_s) < now(), false) or late.rid is not null as unfinished,
      late.rid as late_rid
    from monitored_services s
    left join lateral (
      select rid from push_runs r
      where r.service_id = s.id and r.started_at + make_interval(secs => s.grace_s) < now()
      order by r.started_at limit 1
    ) late on true
    where enabled and kind = 'push'
      ${ids ? sql`and id = any(${ids}::uuid[])` : sql``}
      and (push_started_at + make_interval(secs => grace_s) < now() or late.rid is not null
        or coalesce(checked_at, created_at) + make_interval(secs => interval_s + grace_s) < now())
    order by id`;
}

/** The open starts of a service past grace_s, given up on (their miss is recorded); runs still in time stay open. */
export async function clearLatePushStarts(sql: Db, id: string): Promise<void> {
  await sql`
    update monitored_services set push_started_at = null
    where id = ${id} and push_started_at + make_interval(secs => grace_s) < now()`;
  await sql`
    delete from push_runs r using monitored_services s
    where r.service_id = ${id} and s.id = r.service_id and r.started_at + make_interval(secs => s.grace_s) < now()`;
}

export interface UptimeSummary {
  id: string;
  name: string;
  state: ServiceState;
  enabled: boolean;
  uptime_24h: number | null;
  uptime_7d: number | null;
  uptime_30d: number | null;
}

/** Name, state and uptime over 24 hours, 7 and 30 days of the services named, in no particular order. */
export async function uptimeSummaries(sql: Db, ids: string[]): Promise<UptimeSummary[]> {
  return sql<UptimeSummary[]>`
    select s.id, s.name, s.state, s.enabled,
      round(100.0 * avg(r.ok::int) filter (where r.checked_at > now() - interval '24 hours'), 2)::float8 as uptime_24h,
      round(100.0 * avg(r.ok::int) filter (where r.checked_at > now() - interval '7 days'), 2)::float8 as uptime_7d,
      round(100.0 * avg(r.ok::int), 2)::float8 as uptime_30d
    from monitored_services s
    left join health_results r on r.service_id = s.id and r.checked_at > now() - interval '30 days' and not r.maintenance
    where s.id = any(${ids}::uuid[]) and not s.discovered
    group by s.id`;
}

/** Uptime per UTC day over the last `days` days (today included) of the services named; days without checks left out. */
export async function dailyUptime(sql: Db, ids: string[], days: number) {
  return sql<{ service_id: string; day: string; uptime: number }[]>`
    select service_id, to_char(date_trunc('day', checked_at at time zone 'UTC'), 'YYYY-MM-DD') as day,
      round(100.0 * avg(ok::int), 2)::float8 as uptime
    from health_results
    where service_id = any(${ids}::uuid[])
      and checked_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' - make_interval(days => ${days - 1})
      and not maintenance
    group by service_id, day`;
}

// The sealed passwords and header values, for the key check at start and the key rotation
// (credentials.ts, `sealedCredentials`).

/** Every health check's sealed password, by service id; with `lock`, the rows stay locked (key rotation). */
export async function sealedCheckPasswords(
  sql: Db,
  options: { lock: boolean },
): Promise<{ id: string; sealed: string }[]> {
  return sql<{ id: string; sealed: string }[]>`
    select id, basic_auth_sealed as sealed from monitored_services where basic_auth_sealed is not null
    order by id ${options.lock ? sql`for update` : sql``}`;
}

export async function replaceCheckPassword(sql: Db, id: string, sealed: string): Promise<void> {
  await sql`update monitored_services set basic_auth_sealed = ${sealed} where id = ${id}`;
}

/** The health checks' sealed header values, by service: header name to sealed value. */
export async function sealedCheckHeaders(
  sql: Db,
  options: { lock: boolean },
): Promise<{ id: string; sealed: Record<string, string> }[]> {
  return sql<{ id: string; sealed: Record<string, string> }[]>`
    select id, headers_sealed as sealed from monitored_services where headers_sealed is not null
    order by id ${options.lock ? sql`for update` : sql``}`;
}

export async function replaceCheckHeaders(
  sql: Db,
  id: string,
  sealed: Record<string, string>,
): Promise<void> {
  await sql`update monitored_services set headers_sealed = ${sql.json(sealed)} where id = ${id}`;
}
