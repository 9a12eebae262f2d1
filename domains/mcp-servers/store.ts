// SQL of the downstream MCP servers. Headers are kept sealed ({ name: sealed value }); tools as last listed.
import type { Db } from '../../plugins/db.ts';
import type { DownstreamTool, Policy } from './schema.ts';

export interface ServerFields {
  name: string;
  url: string;
  /** { header name: sealed value } */
  headers: Record<string, string>;
  enabled: boolean;
  tool_policy: Record<string, Policy>;
  default_policy: Policy | null;
  timeout_ms: number;
}

export interface McpServerRow extends ServerFields {
  id: string;
  tools: DownstreamTool[];
  protocol_version: string | null;
  last_error: string | null;
  refreshed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const columns = (sql: Db) => sql`
  id, name, url, headers, enabled, tool_policy, default_policy, timeout_ms, tools, protocol_version, last_error,
  refreshed_at, created_at, updated_at`;

export async function listServerRows(sql: Db, options: { enabledOnly: boolean }): Promise<McpServerRow[]> {
  return sql<McpServerRow[]>`
    select ${columns(sql)} from mcp_servers ${options.enabledOnly ? sql`where enabled` : sql``} order by name`;
}

export async function findServerRow(sql: Db, id: string): Promise<McpServerRow | undefined> {
  const [row] = await sql<McpServerRow[]>`select ${columns(sql)} from mcp_servers where id = ${id}`;
  return row;
}

export async function findServerByName(sql: Db, name: string): Promise<McpServerRow | undefined> {
  const [row] = await sql<McpServerRow[]>`select ${columns(sql)} from mcp_servers where name = ${name}`;
  return row;
}

/** A new row (its headers are sealed once its id is known); undefined when the name is taken. */
export async function insertServerRow(
  sql: Db,
  fields: Omit<ServerFields, 'headers'>,
): Promise<McpServerRow | undefined> {
  const [row] = await sql<McpServerRow[]>`
    insert into mcp_servers (name, url, enabled, tool_policy, default_policy, timeout_ms)
    values (${fields.name}, ${fields.url}, ${fields.enabled}, ${sql.json(fields.tool_policy)},
            ${fields.default_policy}, ${fields.timeout_ms})
    on conflict (name) do nothing
    returning ${columns(sql)}`;
  return row;
}

export async function updateServerRow(sql: Db, id: string, fields: ServerFields): Promise<McpServerRow> {
  const [row] = await sql<McpServerRow[]>`
    update mcp_servers set name = ${fields.name}, url = ${fields.url}, headers = ${sql.json(fields.headers)},
      enabled = ${fields.enabled}, tool_policy = ${sql.json(fields.tool_policy)},
      default_policy = ${fields.default_policy}, timeout_ms = ${fields.timeout_ms}, updated_at = now()
    where id = ${id} returning ${columns(sql)}`;
  return row;
}

/** What a listing found: its tools, or the reason it failed (which disables the server). */
export async function recordListing(
  sql: Db,
  id: string,
  listing: { tools: DownstreamTool[]; protocol_version: string | null } | { error: string },
): Promise<McpServerRow | undefined> {
  const [row] =
    'error' in listing
      ? await sql<McpServerRow[]>`
          update mcp_servers set enabled = false, last_error = ${listing.error}, refreshed_at = now()
          where id = ${id} returning ${columns(sql)}`
      : await sql<McpServerRow[]>`
          update mcp_servers set tools = ${sql.json(listing.tools as never)},
            protocol_version = ${listing.protocol_version}, last_error = null, refreshed_at = now()
          where id = ${id} returning ${columns(sql)}`;
  return row;
}

export async function deleteServerRow(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from mcp_servers where id = ${id}`;
  return result.count > 0;
}

/** Every server's sealed headers; with `lock`, the rows stay locked until the transaction ends (key rotation). */
export async function sealedHeaders(
  sql: Db,
  options: { lock: boolean },
): Promise<{ id: string; headers: Record<string, string> }[]> {
  return sql<{ id: string; headers: Record<string, string> }[]>`
    select id, headers from mcp_servers where headers <> '{}'::jsonb
    order by id ${options.lock ? sql`for update` : sql``}`;
}

export async function replaceHeaders(sql: Db, id: string, headers: Record<string, string>): Promise<void> {
  await sql`update mcp_servers set headers = ${sql.json(headers)} where id = ${id}`;
}
