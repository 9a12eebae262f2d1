// One MCP server per request (the stateless pattern): it lists the tools and runs one for the caller it was built
// for. Tool failures come back as tool results with isError (the agent reads them); protocol errors stay errors.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { statusPhrase } from '../../lib/errors.ts';
import { version } from '../../lib/version.ts';
import { describeError } from '../../plugins/errors.ts';
import type { CallerTool, Tool, ToolContext } from './tool.ts';

/** The tools the modules contribute (app.hub), by name, and those listed per caller. */
export interface Toolbox {
  tools: readonly Tool[];
  toolsByName: ReadonlyMap<string, Tool>;
  callerTools: (ctx: ToolContext) => Promise<CallerTool[]>;
}

const listings = new WeakMap<readonly Tool[], Omit<Tool, 'call'>[]>();

function listed(tools: readonly Tool[]): Omit<Tool, 'call'>[] {
  let listing = listings.get(tools);
  if (!listing) {
    listing = tools.map(({ call: _call, ...tool }) => tool);
    listings.set(tools, listing);
  }
  return listing;
}

const instructions =
  'Tools over the ops-hub knowledge store (pages, projects, tasks, refs, source documents, resources) and the ' +
  'network inventory. Reads stay within your space scope. At suggest tier every write becomes a pending change ' +
  'for the owner to approve: follow it with list_my_pending_changes. Tools named <server>.<tool> belong to other MCP ' +
  'servers behind the hub: a call that needs the owner’s approval answers { status: "pending", pending_action_id }; ' +
  'read its outcome later with get_action_result.';

function toolError(error: unknown, log: FastifyBaseLogger): CallToolResult {
  const { statusCode, message } = describeError(error);
  if (statusCode >= 500) log.error({ err: error }, 'tool call failed');
  return {
    isError: true,
    content: [{ type: 'text', text: `${statusCode} ${statusPhrase(statusCode) ?? 'Error'}: ${message}` }],
  };
}

export function buildMcpServer(ctx: ToolContext, toolbox: Toolbox, log: FastifyBaseLogger): Server {
  const server = new Server({ name: 'ops-hub', version }, { capabilities: { tools: {} }, instructions });
  // The caller's own tools (downstream servers') are read once per request, and only when asked for.
  let callerTools: Promise<CallerTool[]> | null = null;
  const ownTools = () => {
    callerTools ??= toolbox.callerTools(ctx);
    return callerTools;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...listed(toolbox.tools), ...(await ownTools()).map((tool) => tool.listing)],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = toolbox.toolsByName.get(request.params.name);
    if (!tool) {
      const callerTool = (await ownTools()).find(
        (candidate) => candidate.listing.name === request.params.name,
      );
      if (!callerTool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${request.params.name}`);
      try {
        return await callerTool.call(request.params.arguments ?? {}, ctx);
      } catch (error) {
        return toolError(error, log);
      }
    }
    try {
      // Dates become ISO strings: what the text copy says, the structured content says too.
      const text = JSON.stringify(await tool.call(request.params.arguments, ctx));
      return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) };
    } catch (error) {
      return toolError(error, log);
    }
  });
  return server;
}
