// POST /api/mcp: the tool protocol (MCP over Streamable HTTP, stateless: a new server and transport per request).
// Agents and the owner authenticate with their bearer token; the per-agent rate limit applies like on any route.
//
// Routes it registers (access in brackets):
//   POST   /api/mcp  [agent or owner]
//   GET    /api/mcp  [agent or owner]
//   DELETE /api/mcp  [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { lazy } from '../../lib/lazy.ts';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { writeEnv } from '../entities/write.ts';

// The protocol's SDK loads with the first request: most starts never see one.
const protocol = lazy(async () => {
  const [{ StreamableHTTPServerTransport }, { buildMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./server.ts'),
  ]);
  return { StreamableHTTPServerTransport, buildMcpServer };
});

const tags = ['mcp'];

const JsonRpc = Type.Unknown({ description: 'a JSON-RPC 2.0 message or batch (MCP)' });
const JsonRpcError = Type.Unknown({
  description:
    'a JSON-RPC error: bad JSON-RPC (400), an Accept header without both JSON and event streams (406)',
});

async function handle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const principal = request.principal;
  if (!principal) throw hubError('UNAUTHORIZED');
  const { StreamableHTTPServerTransport, buildMcpServer } = await protocol();
  const hub = request.server.hub;
  const server = buildMcpServer(
    {
      sql: request.server.sql,
      env: writeEnv(request.server),
      actions: hub.actions,
      principal,
      spaceContext: null,
    },
    hub,
    request.log,
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  // The transport writes the response itself. Headers our hooks set (rate-limit counters) are carried over.
  reply.hijack();
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (error) {
    request.log.error({ err: error }, 'tool protocol request failed');
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { 'content-type': 'application/json' });
      reply.raw.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }),
      );
    }
  }
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/mcp',
    {
      // Tools that write check the tier themselves (a read-tier agent may still call every read tool).
      config: { readOnly: true },
      schema: {
        tags,
        summary: 'The tool protocol: MCP over Streamable HTTP (stateless, JSON responses)',
        description:
          'Send JSON-RPC with "Accept: application/json, text/event-stream" and your bearer token. Agents below ' +
          'owner tier never write: a suggest-tier write answers { pending_change_id, status: "pending" }.',
        body: JsonRpc,
        response: {
          200: Type.Unknown({ description: 'the JSON-RPC response' }),
          202: Type.Null({ description: 'a notification or response was accepted' }),
          ...errors(401, 413, 415, 429),
          400: JsonRpcError,
          406: JsonRpcError,
        },
      },
    },
    handle,
  );

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config: { readOnly: true },
      schema: {
        tags,
        summary: `${method} is not offered: the tool protocol is stateless (no sessions, no server stream)`,
        response: errors(401, 405, 429),
      },
      handler: async (_request, reply) => {
        reply.header('allow', 'POST');
        throw hubError(
          'METHOD_NOT_ALLOWED',
          'the tool protocol takes POST only (stateless: no sessions or streams)',
        );
      },
    });
  }
};

export default {
  name: 'mcp',
  routes: agentAccess(plugin),
} satisfies HubModule;
