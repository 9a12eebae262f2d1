// Making one downstream call for the gateway, whoever decided it (a passing tool at once, an approved pending action
// later): the owner's headers only, the result as the downstream sent it, and one audit entry per call naming the
// caller, the server, the tool, the arguments' SHA-256 digest, how long it took and how it ended. A server that is
// down, slow or gone answers a tool error the agent can read, never an exception.
import { createHash } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { insertAuditEntry } from '../audit/trail.ts';
import { callDownstreamTool, DownstreamError } from './downstream.ts';
import { downstreamOf, type GatewayDeps } from './manage.ts';
import { findServerRow } from './store.ts';

export interface DownstreamCall {
  server_id: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export function argumentsDigest(args: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(args)).digest('hex');
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

export async function forwardCall(
  deps: GatewayDeps,
  call: DownstreamCall,
  /** Who the call is made for (the audit log's actor), and the pending action that approved it, if any. */
  by: { actor: string; pending_action_id?: string },
): Promise<CallToolResult> {
  const started = performance.now();
  const row = await findServerRow(deps.sql, call.server_id);
  let result: CallToolResult;
  let outcome: 'ok' | 'tool_error' | 'failed';
  if (!row?.enabled) {
    result = errorResult(`the MCP server ${row?.name ?? call.server_id} is ${row ? 'disabled' : 'gone'}`);
    outcome = 'failed';
  } else {
    try {
      result = await callDownstreamTool(await downstreamOf(deps.config, row), call.tool, call.arguments);
      outcome = result.isError ? 'tool_error' : 'ok';
    } catch (error) {
      if (!(error instanceof DownstreamError)) throw error;
      result = errorResult(`the call to ${row.name}.${call.tool} failed: ${error.message}`);
      outcome = 'failed';
    }
  }
  await insertAuditEntry(deps.sql, {
    actor: by.actor,
    action: 'mcp_call',
    pending_change_id: null,
    entity_type: 'mcp_server',
    entity_id: row?.id ?? null,
    outcome: outcome === 'failed' ? 'failed' : 'applied',
    detail: {
      server: row?.name ?? null,
      tool: call.tool,
      arguments_sha256: argumentsDigest(call.arguments),
      duration_ms: Math.round(performance.now() - started),
      outcome,
      ...(by.pending_action_id ? { pending_action_id: by.pending_action_id } : {}),
    },
  });
  return result;
}
