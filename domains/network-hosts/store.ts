// The infrastructure host inventory, read by the audit tool and the cluster card.
import type { Static } from 'typebox';
import { defined } from '../../lib/defined.ts';
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';
import type { CreateNetworkHost, NetworkHost, UpdateNetworkHost } from './schema.ts';

/** A row as the API shows it: the NetworkHost schema's type. */
export type NetworkHostRow = Static<typeof NetworkHost>;

// host(ip): the address without a /32 or /128 suffix.
const select = (sql: Db) =>
  sql`id, hostname, host(ip) as ip, role, os, notes, last_seen_at, created_at, updated_at`;

/** Every host, by hostname. */
export async function listNetworkHosts(sql: Db): Promise<NetworkHostRow[]> {
  return sql<NetworkHostRow[]>`select ${select(sql)} from network_hosts order by lower(hostname), id`;
}

export async function pageNetworkHosts(sql: Db, filter: { role?: string; limit: number; offset: number }) {
  const where = filter.role ? sql`where role = ${filter.role}` : sql``;
  return listPage<NetworkHostRow>(
    sql,
    {
      select: sql`${select(sql)}`,
      from: sql`from network_hosts ${where}`,
      orderBy: sql`lower(hostname), id`,
    },
    filter,
  );
}

export async function findNetworkHost(sql: Db, id: string): Promise<NetworkHostRow | undefined> {
  const [row] = await sql<NetworkHostRow[]>`select ${select(sql)} from network_hosts where id = ${id}`;
  return row;
}

export async function insertNetworkHost(sql: Db, host: CreateNetworkHost): Promise<NetworkHostRow> {
  const [row] = await sql<NetworkHostRow[]>`
    insert into network_hosts (hostname, ip, role, os, notes, last_seen_at)
    values (${host.hostname}, ${host.ip ?? null}, ${host.role ?? ''}, ${host.os ?? ''}, ${host.notes ?? ''},
            ${host.last_seen_at ?? null})
    returning ${select(sql)}`;
  return row;
}

export async function updateNetworkHost(
  sql: Db,
  id: string,
  patch: UpdateNetworkHost,
): Promise<NetworkHostRow | undefined> {
  const fields = defined(patch);
  if (Object.keys(fields).length === 0) return findNetworkHost(sql, id);
  const [row] = await sql<NetworkHostRow[]>`
    update network_hosts set ${sql(fields)}, updated_at = now() where id = ${id} returning ${select(sql)}`;
  return row;
}

export async function deleteNetworkHost(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from network_hosts where id = ${id}`;
  return result.count > 0;
}
