// Monitored services as the API shows them, and the registry's writes: the routes (read-routes.ts,
// write-routes.ts) and the service_health tool call these.
import { hubError } from '../../lib/errors.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { assertIconRef, iconUrl } from '../icons/icon-ref.ts';
import { maintenanceAt, type ServiceMaintenance } from '../maintenance/windows.ts';
import { insertSealed, type KeyConfig, replaceSealed } from './credentials.ts';
import { checkDefinition, type Definition, type Secrets } from './definition.ts';
import { keepPushToken, renewPushToken } from './push.ts';
import { type CreateService, healthCheckTask, type Service, type UpdateService } from './schema.ts';
import {
  type CandidateRow,
  findService,
  listServices,
  lockService,
  resourceExists,
  type ServiceRow,
  serviceWithTarget,
  setPaused,
} from './store.ts';
import { recordStateChange } from './timeline.ts';

/** A service as the API shows it, with the maintenance window on for it now (`maintenanceAt`), where one is. */
export function present(
  row: ServiceRow,
  maintenance: ReadonlyMap<string, ServiceMaintenance> = new Map(),
): Service {
  const { failures: _failures, down_alert, basic_auth_set, header_names, ...service } = row;
  return {
    ...service,
    basic_auth: { set: basic_auth_set },
    headers: { set: header_names.length > 0, names: header_names },
    icon_url: iconUrl(row.icon),
    suppressed_by: row.state === 'down' && down_alert !== null && down_alert !== row.id ? down_alert : null,
    maintenance: maintenance.get(row.id) ?? null,
    push_token: null,
  };
}

export function presentCandidate(row: CandidateRow) {
  const place = `${row.host}:${row.port}`;
  return {
    ...present(row),
    device_name: row.device_name,
    display_name: row.device_name ? `${row.device_name}:${row.port}` : place,
  };
}

/** The registry grouped by category (also the `service_health` tool). */
export async function serviceGroups(sql: Db, filter: { category?: string; include_disabled?: boolean }) {
  const rows = await listServices(sql, {
    category: filter.category,
    includeDisabled: filter.include_disabled ?? true,
  });
  const maintenance = await maintenanceAt(sql);
  const groups = new Map<string, { category: string; healthy: number; total: number; services: Service[] }>();
  for (const row of rows) {
    let group = groups.get(row.category);
    if (!group) {
      group = { category: row.category, healthy: 0, total: 0, services: [] };
      groups.set(row.category, group);
    }
    group.services.push(present(row, maintenance));
    if (row.enabled) {
      group.total++;
      // Slow (degraded) or with a certificate expiring soon (warning), a service still passes its check.
      if (row.state === 'up' || row.state === 'degraded' || row.state === 'warning') group.healthy++;
    }
  }
  return { groups: [...groups.values()] };
}

export async function found(sql: Db, id: string): Promise<Service> {
  const row = await findService(sql, id);
  if (!row) throw hubError('SERVICE_NOT_FOUND', id);
  return present(row, await maintenanceAt(sql));
}

/**
 * Writes a definition under its target: 409 when another service already checks it. A service that becomes a push
 * service gets its heartbeat token, returned this once (`push_token`); one that stops being one loses it.
 */
export async function save(
  sql: Db,
  config: KeyConfig,
  id: string | null,
  { definition, ...secrets }: { definition: Definition } & Secrets,
): Promise<{ id: string; push_token: string | null }> {
  if (definition.resource_id && !(await resourceExists(sql, definition.resource_id))) {
    throw hubError('RESOURCE_NOT_FOUND', definition.resource_id);
  }
  const taken = await serviceWithTarget(sql, definition.target, id);
  if (taken) throw hubError('SERVICE_TARGET_TAKEN', definition.target);
  let saved = id;
  if (saved) {
    await replaceSealed(sql, config, saved, definition, secrets);
  } else {
    saved = (await insertSealed(sql, config, definition, secrets)) ?? null;
    if (!saved) throw hubError('SERVICE_TARGET_TAKEN', definition.target);
  }
  return { id: saved, push_token: await keepPushToken(sql, saved, definition.kind) };
}

export function definitionFields(row: ServiceRow) {
  const {
    id: _id,
    discovered: _d,
    state: _s,
    latency_ms: _l,
    checked_at: _c,
    since: _since,
    message: _m,
    last_push_at: _lp,
    push_started_at: _ps,
    failures: _f,
    down_alert: _da,
    basic_auth_set: _b,
    header_names: _h,
    details: _details,
    uptime_24h: _u,
    created_at: _ca,
    updated_at: _ua,
    target: _t,
    ...fields
  } = row;
  return fields;
}

/** A curated service, locked for a write: a discovered candidate is not one (404). */
async function lockCurated(tx: Db, id: string): Promise<ServiceRow> {
  const current = await lockService(tx, id);
  if (!current || current.discovered) throw hubError('SERVICE_NOT_FOUND', id);
  return current;
}

/** A new service, with its push token the one time it is shown. */
export async function addService(sql: Sql, config: KeyConfig, body: CreateService): Promise<Service> {
  const checked = checkDefinition(body);
  await assertIconRef(sql, body.icon);
  const saved = await sql.begin((tx) => save(tx, config, null, checked));
  return { ...(await found(sql, saved.id)), push_token: saved.push_token };
}

/** A replacement: fields not sent take their defaults; credentials (in url or basic_auth) and headers not sent go. */
export async function replaceService(
  sql: Sql,
  config: KeyConfig,
  id: string,
  body: CreateService,
): Promise<Service> {
  await assertIconRef(sql, body.icon);
  const saved = await sql.begin(async (tx) => {
    const current = await lockCurated(tx, id);
    const { definition, credentials, headers } = checkDefinition(body, null, current.target);
    return save(tx, config, id, { definition, credentials: credentials ?? null, headers: headers ?? null });
  });
  return { ...(await found(sql, id)), push_token: saved.push_token };
}

/** Some fields changed; the rest, stored credentials and headers included, stay. */
export async function changeService(
  sql: Sql,
  config: KeyConfig,
  id: string,
  body: UpdateService,
): Promise<Service> {
  await assertIconRef(sql, body.icon);
  const saved = await sql.begin(async (tx) => {
    const current = await lockCurated(tx, id);
    const merged = { ...definitionFields(current), ...body };
    return save(tx, config, id, checkDefinition(merged, current.url, current.target));
  });
  return { ...(await found(sql, id)), push_token: saved.push_token };
}

/** A push service's new heartbeat token (the old one stops working), shown this once. */
export async function newPushToken(sql: Sql, id: string): Promise<Service> {
  const token = await sql.begin(async (tx) => {
    const current = await lockCurated(tx, id);
    if (current.kind !== 'push') throw hubError('SERVICE_NOT_PUSH', id);
    return renewPushToken(tx, id);
  });
  return { ...(await found(sql, id)), push_token: token };
}

/**
 * Stops a service's checks until it is resumed: state paused, an event with the reason, no alert. Pausing a paused
 * service changes nothing.
 */
export async function pauseService(sql: Sql, id: string, reason = 'paused by the owner'): Promise<Service> {
  await sql.begin(async (tx) => {
    const current = await lockCurated(tx, id);
    if (current.state === 'paused') return;
    await setPaused(tx, current, true, reason);
    await recordStateChange(tx, {
      service: current,
      from: current.state,
      to: 'paused',
      message: reason,
      actor: 'owner',
    });
  });
  return found(sql, id);
}

/** Checks a paused service again, at once (the check is enqueued with the change). Resuming one not paused changes nothing. */
export async function resumeService(sql: Sql, id: string): Promise<Service> {
  await sql.begin(async (tx) => {
    const current = await lockCurated(tx, id);
    if (current.state !== 'paused') return;
    await setPaused(tx, current, false, 'resumed by the owner');
    await recordStateChange(tx, {
      service: current,
      from: 'paused',
      to: 'pending',
      message: 'resumed by the owner',
      actor: 'owner',
    });
    if (current.kind !== 'push') await enqueue(tx, healthCheckTask, { ids: [id] });
  });
  return found(sql, id);
}
