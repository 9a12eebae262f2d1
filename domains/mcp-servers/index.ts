// The hub as a gateway to other MCP servers: the owner connects downstream servers (their tools then appear on
// /api/mcp as "<server>.<tool>" for the agents granted mcp:<server>, each call passing, waiting for approval or
// refused by its policy). Owner only.
//
// Routes it registers:
//   GET    /api/mcp-servers              every downstream server (headers only as { set: true })
//   POST   /api/mcp-servers              connect one: its tools are listed now (unreachable: saved disabled)
//   GET    /api/mcp-servers/:id          one server
//   PATCH  /api/mcp-servers/:id          change it (headers: a value sets, null clears, left out keeps); listed again
//   DELETE /api/mcp-servers/:id          forget it
//   POST   /api/mcp-servers/:id/refresh  list its tools again
//   GET    /api/mcp-servers/:id/tools    its tools, their annotations and effective policies
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { gatewayTools } from './gateway.ts';
import {
  createServer,
  deleteServer,
  type GatewayDeps,
  getServer,
  listServers,
  present,
  presentTools,
  refreshServer,
  updateServer,
} from './manage.ts';
import { McpServer, McpServerInput, McpServerList, McpServerPatch, McpServerTools } from './schema.ts';
import { sealedServerHeaders } from './sealed.ts';

const tags = ['mcp-servers'];
const saveNote =
  'The hub connects with the MCP client (Streamable HTTP), negotiates the protocol version and lists the tools; ' +
  'a server that cannot be reached is saved disabled, with the reason in last_error.';

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(McpServer);
  const deps: GatewayDeps = { sql: app.sql, config: app.config.server };

  app.get(
    '/mcp-servers',
    {
      schema: {
        tags,
        summary: 'Every downstream MCP server',
        response: { 200: McpServerList, ...errors(401, 403) },
      },
    },
    async () => ({ items: await listServers(deps) }),
  );

  app.post(
    '/mcp-servers',
    {
      schema: {
        tags,
        summary: 'Connect a downstream MCP server',
        description: saveNote,
        body: McpServerInput,
        response: { 201: Type.Ref('McpServer'), ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await createServer(deps, request.body)),
  );

  app.get(
    '/mcp-servers/:id',
    {
      schema: {
        tags,
        summary: 'One downstream MCP server',
        params: IdParams,
        response: { 200: Type.Ref('McpServer'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => present(await getServer(deps, request.params.id)),
  );

  app.patch(
    '/mcp-servers/:id',
    {
      schema: {
        tags,
        summary: 'Change a downstream MCP server',
        description: `Fields left out keep their values; a header set to null is cleared. ${saveNote}`,
        params: IdParams,
        body: McpServerPatch,
        response: { 200: Type.Ref('McpServer'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => updateServer(deps, request.params.id, request.body),
  );

  app.delete(
    '/mcp-servers/:id',
    {
      schema: {
        tags,
        summary: 'Forget a downstream MCP server',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteServer(deps, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/mcp-servers/:id/refresh',
    {
      schema: {
        tags,
        summary: 'List a downstream MCP server’s tools again',
        description: saveNote,
        params: IdParams,
        response: { 200: Type.Ref('McpServer'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => refreshServer(deps, request.params.id),
  );

  app.get(
    '/mcp-servers/:id/tools',
    {
      schema: {
        tags,
        summary: 'A downstream server’s tools with their annotations and effective policies',
        params: IdParams,
        response: { 200: McpServerTools, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({ items: presentTools(await getServer(deps, request.params.id)) }),
  );
};

export default {
  name: 'mcp-servers',
  routes,
  callerTools: gatewayTools,
  sealed: [sealedServerHeaders],
} satisfies HubModule;
