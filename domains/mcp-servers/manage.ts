// The owner's side of the gateway: saving a downstream server (headers sealed, write-only), listing its tools on
// every save and refresh (a server that cannot be reached is kept, disabled, with the reason), and each tool's
// effective policy: the owner's per-tool override, else the server's default policy, else the tool's annotations
// (readOnlyHint passes, anything else waits for approval).
import type { ServerConfig } from '../../config/server.ts';
import { hubError } from '../../lib/errors.ts';
import type { Sql } from '../../plugins/db.ts';
import { openHubSecret, sealHubSecret } from '../integrations/keyring.ts';
import { type Downstream, DownstreamError, listDownstreamTools } from './downstream.ts';
import type { DownstreamTool, McpServer, McpServerInput, McpServerPatch, Policy } from './schema.ts';
import { headerPlace } from './sealed.ts';
import {
  deleteServerRow,
  findServerByName,
  findServerRow,
  insertServerRow,
  listServerRows,
  type McpServerRow,
  recordListing,
  updateServerRow,
} from './store.ts';

export type KeyConfig = Pick<ServerConfig, 'dataDir' | 'secretKey'>;

export interface GatewayDeps {
  sql: Sql;
  config: KeyConfig;
}

export const defaultTimeoutMs = 30_000;

// The protocol's rule for tool names (letters, digits, "_", "-", "."; at most 128): "<server>.<tool>" keeps to it.
const toolNamePattern = /^[A-Za-z0-9._-]{1,128}$/;

/** The name agents see for a downstream tool, or null when the joined name breaks the protocol's rule. */
export function listedName(server: string, tool: string): string | null {
  const name = `${server}.${tool}`;
  return toolNamePattern.test(name) ? name : null;
}

export function effectivePolicy(
  row: Pick<McpServerRow, 'tool_policy' | 'default_policy'>,
  tool: DownstreamTool,
): { policy: Policy; source: 'tool' | 'default' | 'annotations' } {
  const override = row.tool_policy[tool.name];
  if (override) return { policy: override, source: 'tool' };
  if (row.default_policy) return { policy: row.default_policy, source: 'default' };
  return { policy: tool.annotations?.readOnlyHint === true ? 'pass' : 'approve', source: 'annotations' };
}

export function present(row: McpServerRow): McpServer {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    headers: Object.fromEntries(Object.keys(row.headers).map((name) => [name, { set: true as const }])),
    enabled: row.enabled,
    tool_policy: row.tool_policy,
    default_policy: row.default_policy,
    timeout_ms: row.timeout_ms,
    tool_count: row.tools.length,
    protocol_version: row.protocol_version,
    last_error: row.last_error,
    refreshed_at: row.refreshed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentTools(row: McpServerRow) {
  return row.tools.map((tool) => {
    const { policy, source } = effectivePolicy(row, tool);
    return {
      name: tool.name,
      listed_as: listedName(row.name, tool.name) ?? '',
      title: tool.title ?? null,
      description: tool.description ?? null,
      input_schema: tool.inputSchema,
      annotations: tool.annotations ?? {},
      policy,
      policy_source: source,
    };
  });
}

/** How to reach a stored server: its headers opened from their seals. */
export async function downstreamOf(config: KeyConfig, row: McpServerRow): Promise<Downstream> {
  const headers: Record<string, string> = {};
  for (const [name, sealed] of Object.entries(row.headers)) {
    headers[name] = await openHubSecret(config, headerPlace(row.id, name), sealed);
  }
  return { name: row.name, url: row.url, headers, timeout_ms: row.timeout_ms };
}

/** The stored seals after a write: a value seals anew, null clears, a name left out keeps its seal. */
async function sealHeaders(
  config: KeyConfig,
  id: string,
  stored: Record<string, string>,
  given: Record<string, string | null> | undefined,
): Promise<Record<string, string>> {
  const headers = { ...stored };
  for (const [name, value] of Object.entries(given ?? {})) {
    // Header names are case-insensitive: one seal per name, kept under the name last given.
    for (const key of Object.keys(headers)) if (key.toLowerCase() === name.toLowerCase()) delete headers[key];
    if (value !== null) headers[name] = await sealHubSecret(config, headerPlace(id, name), value);
  }
  return headers;
}

/** Lists the server's tools and records them, or the reason it could not (which disables it). */
async function list(deps: GatewayDeps, row: McpServerRow): Promise<McpServerRow> {
  let listing: Parameters<typeof recordListing>[2];
  try {
    listing = await listDownstreamTools(await downstreamOf(deps.config, row));
  } catch (error) {
    if (!(error instanceof DownstreamError)) throw error;
    listing = { error: error.message };
  }
  return (await recordListing(deps.sql, row.id, listing)) ?? row;
}

export async function listServers(deps: GatewayDeps): Promise<McpServer[]> {
  return (await listServerRows(deps.sql, { enabledOnly: false })).map(present);
}

export async function getServer(deps: GatewayDeps, id: string): Promise<McpServerRow> {
  const row = await findServerRow(deps.sql, id);
  if (!row) throw hubError('MCP_SERVER_NOT_FOUND', id);
  return row;
}

export async function createServer(deps: GatewayDeps, input: McpServerInput): Promise<McpServer> {
  const saved = await deps.sql.begin(async (tx) => {
    const row = await insertServerRow(tx, {
      name: input.name,
      url: input.url,
      enabled: input.enabled ?? true,
      tool_policy: input.tool_policy ?? {},
      default_policy: input.default_policy ?? null,
      timeout_ms: input.timeout_ms ?? defaultTimeoutMs,
    });
    if (!row) throw hubError('MCP_SERVER_NAME_TAKEN', input.name);
    const headers = await sealHeaders(deps.config, row.id, {}, input.headers);
    return updateServerRow(tx, row.id, { ...row, headers });
  });
  return present(await list(deps, saved));
}

export async function updateServer(deps: GatewayDeps, id: string, patch: McpServerPatch): Promise<McpServer> {
  const saved = await deps.sql.begin(async (tx) => {
    const row = await findServerRow(tx, id);
    if (!row) throw hubError('MCP_SERVER_NOT_FOUND', id);
    if (patch.name && patch.name !== row.name) {
      const other = await findServerByName(tx, patch.name);
      if (other) throw hubError('MCP_SERVER_NAME_TAKEN', patch.name);
    }
    const headers = await sealHeaders(deps.config, id, row.headers, patch.headers);
    return updateServerRow(tx, id, {
      name: patch.name ?? row.name,
      url: patch.url ?? row.url,
      headers,
      enabled: patch.enabled ?? row.enabled,
      tool_policy: patch.tool_policy ?? row.tool_policy,
      default_policy: patch.default_policy === undefined ? row.default_policy : patch.default_policy,
      timeout_ms: patch.timeout_ms ?? row.timeout_ms,
    });
  });
  return present(await list(deps, saved));
}

export async function refreshServer(deps: GatewayDeps, id: string): Promise<McpServer> {
  return present(await list(deps, await getServer(deps, id)));
}

export async function deleteServer(deps: GatewayDeps, id: string): Promise<void> {
  if (!(await deleteServerRow(deps.sql, id))) throw hubError('MCP_SERVER_NOT_FOUND', id);
}
