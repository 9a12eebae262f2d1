// A downstream MCP server for the gateway's tests: the SDK's McpServer over Streamable HTTP on loopback (stateless,
// a server and transport per request, as small home-lab servers run it), shaped like a home-automation server: a
// read-only tool with structured output, a write, a destructive write and a slow read. It records every request's
// headers and every tool call, and can demand a bearer header.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { createAgent, type TestApp } from './app.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface Downstream {
  url: string;
  /** Every request's headers, in order. */
  headers: http.IncomingHttpHeaders[];
  /** Every tool call that reached a tool, in order. */
  calls: { tool: string; args: Record<string, unknown> }[];
  /** Stops listening and cuts open connections: the server is then down. */
  stop(): Promise<void>;
}

export interface DownstreamOptions {
  /** The bearer token every request must carry (401 without it). */
  bearer?: string;
  /** How long the `wait` tool takes. */
  waitMs?: number;
}

function build(downstream: Downstream, options: DownstreamOptions, timers: Set<NodeJS.Timeout>): McpServer {
  const server = new McpServer({ name: 'home-lab-test', version: '1.0.0' });
  const record = (tool: string, args: Record<string, unknown>) => downstream.calls.push({ tool, args });
  server.registerTool(
    'get_state',
    {
      title: 'Get state',
      description: 'The state of an entity',
      inputSchema: { entity: z.string() },
      outputSchema: { entity: z.string(), state: z.string() },
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      record('get_state', args);
      const structuredContent = { entity: args.entity, state: 'on' };
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
    },
  );
  server.registerTool(
    'set_light',
    {
      title: 'Set a light',
      description: 'Turns a light on or off',
      inputSchema: { entity: z.string(), on: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    async (args) => {
      record('set_light', args);
      return { content: [{ type: 'text', text: `${args.entity} is ${args.on ? 'on' : 'off'}` }] };
    },
  );
  server.registerTool(
    'wipe',
    { description: 'Deletes everything', inputSchema: {}, annotations: { destructiveHint: true } },
    async () => {
      record('wipe', {});
      return { content: [{ type: 'text', text: 'wiped' }] };
    },
  );
  server.registerTool(
    'wait',
    {
      description: 'A slow read, answering as many bytes as asked',
      inputSchema: { bytes: z.number().int().min(0).optional() },
      annotations: { readOnlyHint: true },
    },
    async (args) => {
      record('wait', args);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.waitMs ?? 0);
        timers.add(timer);
      });
      return { content: [{ type: 'text', text: 'x'.repeat(args.bytes ?? 4) }] };
    },
  );
  return server;
}

export async function startDownstream(t: Teardown, options: DownstreamOptions = {}): Promise<Downstream> {
  const timers = new Set<NodeJS.Timeout>();
  const downstream: Downstream = { url: '', headers: [], calls: [], stop: async () => undefined };
  const httpServer = http.createServer(async (request, response) => {
    downstream.headers.push(request.headers);
    if (options.bearer && request.headers.authorization !== `Bearer ${options.bearer}`) {
      response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      response.end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const server = build(downstream, options, timers);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  downstream.url = `http://127.0.0.1:${port}/mcp`;
  let stopped = false;
  downstream.stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  };
  t.teardown(() => downstream.stop());
  return downstream;
}

/**
 * Saves `server` as the downstream `name` and makes a suggest-tier agent allowed to use it (`mcp:<name>`): what every
 * test of an agent calling through the gateway starts with.
 */
export async function agentWithDownstream(ta: TestApp, server: Downstream, name = 'home') {
  const saved = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp-servers',
    payload: { name, url: server.url },
  });
  if (saved.statusCode !== 201) throw new Error(`saving the downstream ${name}: ${saved.body}`);
  const agent = await createAgent(ta, { tier: 'suggest' });
  const granted = await ta.asOwner({
    method: 'PATCH',
    url: `/api/agents/${agent.id}`,
    payload: { capabilities: [`mcp:${name}`] },
  });
  if (granted.statusCode !== 200) throw new Error(`granting mcp:${name}: ${granted.body}`);
  return { agent, serverId: saved.json().id as string };
}
