// What agents see of the downstream servers on /api/mcp: each enabled server's tools, named "<server>.<tool>", for
// the owner and for agents granted the capability mcp:<server>. A tool's effective policy decides a call: pass
// forwards it at once, approve answers at once with a pending action the owner decides (the call is made on
// approval), deny is neither listed nor callable. Agents at owner tier follow the same policy.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { proposeDownstreamCall } from '../actions/run.ts';
import { agentCapabilities } from '../agents/scopes.ts';
import { actorOf } from '../audit/trail.ts';
import type { CallerTool, ToolContext } from '../mcp/tool.ts';
import { errorResult, forwardCall } from './forward.ts';
import { effectivePolicy, listedName } from './manage.ts';
import { listServerRows } from './store.ts';

/** The capability that lets an agent use a downstream server. */
export function serverScope(server: string): string {
  return `mcp:${server}`;
}

type Listing = CallerTool['listing'];

function pendingResult(receipt: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(receipt) }], structuredContent: receipt };
}

export async function gatewayTools(ctx: ToolContext): Promise<CallerTool[]> {
  const { principal } = ctx;
  const config = ctx.env.config?.server;
  if (!config) return [];
  const granted =
    principal.kind === 'agent' ? new Set(await agentCapabilities(ctx.sql, principal.agentId)) : null;
  const servers = (await listServerRows(ctx.sql, { enabledOnly: true })).filter(
    (server) => !granted || granted.has(serverScope(server.name)),
  );
  const deps = { sql: ctx.sql, config };
  return servers.flatMap((server) =>
    server.tools.flatMap((tool): CallerTool[] => {
      const name = listedName(server.name, tool.name);
      const { policy } = effectivePolicy(server, tool);
      if (!name || policy === 'deny') return [];
      const passes = policy === 'pass' || principal.kind === 'owner';
      return [
        {
          listing: {
            name,
            ...(tool.title !== undefined ? { title: tool.title } : {}),
            description: `${server.name}: ${tool.description ?? tool.name}${passes ? '' : ' (waits for the owner’s approval: the result is { status: "pending", pending_action_id }; read it later with get_action_result)'}`,
            inputSchema: tool.inputSchema as Listing['inputSchema'],
            // A call waiting for approval answers a receipt, not the tool's output: no output schema to hold it to.
            ...(passes && tool.outputSchema
              ? { outputSchema: tool.outputSchema as Listing['outputSchema'] }
              : {}),
            ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
          },
          async call(args) {
            const call = { server_id: server.id, tool: tool.name, arguments: args };
            // The owner is the one who approves: the owner's own calls are made at once.
            if (policy === 'pass' || principal.kind === 'owner')
              return forwardCall(deps, call, { actor: actorOf(principal) });
            if (principal.tier === 'read')
              return errorResult(
                `a read-tier agent cannot ask for ${name}: it waits for the owner’s approval`,
              );
            const action = await proposeDownstreamCall(
              ctx.sql,
              principal,
              { ...call, server: server.name },
              ctx.env.config,
            );
            return pendingResult({
              status: 'pending',
              pending_action_id: action.id,
              server: server.name,
              tool: tool.name,
            });
          },
        },
      ];
    }),
  );
}
