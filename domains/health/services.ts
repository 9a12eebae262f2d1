// Monitored services as the API shows them, and the registry's writes: the routes of index.ts and the
// service_health tool call these.
import { hubError } from '../../lib/errors.ts';
import type { Db } from '../../plugins/db.ts';
import { iconUrl } from '../icons/icon-ref.ts';
import type { Definition, Secrets } from './definition.ts';
import type { Service } from './schema.ts';
import {
  type CandidateRow,
  findService,
  insertService,
  listServices,
  replaceService,
  type ServiceRow,
  serviceWithTarget,
} from './store.ts';

export function present(row: ServiceRow): Service {
  const { failures: _failures, basic_auth_set, header_names, ...service } = row;
  return {
    ...service,
    basic_auth: { set: basic_auth_set },
    headers: { set: header_names.length > 0, names: header_names },
    icon_url: iconUrl(row.icon),
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
  const groups = new Map<string, { category: string; healthy: number; total: number; services: Service[] }>();
  for (const row of rows) {
    let group = groups.get(row.category);
    if (!group) {
      group = { category: row.category, healthy: 0, total: 0, services: [] };
      groups.set(row.category, group);
    }
    group.services.push(present(row));
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
  return present(row);
}

/** Writes a definition under its target: 409 when another service already checks it. */
export async function save(
  sql: Db,
  id: string | null,
  { definition, ...secrets }: { definition: Definition } & Secrets,
): Promise<string> {
  const taken = await serviceWithTarget(sql, definition.target, id);
  if (taken) throw hubError('SERVICE_TARGET_TAKEN', definition.target);
  if (id) {
    await replaceService(sql, id, definition, secrets);
    return id;
  }
  const created = await insertService(sql, definition, secrets);
  if (!created) throw hubError('SERVICE_TARGET_TAKEN', definition.target);
  return created;
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
    failures: _f,
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
