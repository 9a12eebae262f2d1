// Talking to a downstream MCP server with the SDK's client over Streamable HTTP: one connection per listing or call
// (the protocol version negotiated each time), the owner's headers on every request and nothing else of the caller's,
// every step under one deadline and every response under a size bound, so a silent or flooding server answers an
// error in time instead of hanging the agent.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { lazy } from '../../lib/lazy.ts';
import { version } from '../../lib/version.ts';
import type { DownstreamTool } from './schema.ts';

// The SDK (and the schema library under it) is some megabytes of heap: loaded when a downstream is first reached.
const sdk = lazy(async () => {
  const [{ Client }, { StreamableHTTPClientTransport }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  return { Client, StreamableHTTPClientTransport };
});

/** The most a downstream response may carry (a listing or a call's result). */
export const maxResponseBytes = 4 * 1024 * 1024;

export interface Downstream {
  name: string;
  url: string;
  /** The headers opened from their seals. */
  headers: Record<string, string>;
  timeout_ms: number;
}

export class DownstreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownstreamError';
  }
}

type Fetch = typeof fetch;

/** fetch with the deadline's signal and a byte bound on the body. */
function boundedFetch(deadline: AbortSignal): Fetch {
  return async (input, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await fetch(input, { ...init, signal });
    if (!response.body) return response;
    let seen = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxResponseBytes)
            controller.error(new DownstreamError(`the response exceeds ${maxResponseBytes} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function describe(server: Downstream, error: unknown, deadline: AbortSignal): string {
  if (deadline.aborted) return `${server.name} did not answer within ${server.timeout_ms} ms`;
  const err = error as Error & { code?: unknown; cause?: { code?: string; message?: string } };
  // The SDK's HTTP errors carry the status as their code: say it first, it is what the owner acts on.
  const status =
    typeof err.code === 'number' && err.code >= 100 && err.code < 600 ? `HTTP ${err.code}: ` : '';
  const cause = err.cause?.code ?? err.cause?.message;
  const text = `${err.message}${cause && !err.message.includes(cause) ? ` (${cause})` : ''}`;
  return `${server.name}: ${status}${text.slice(0, 500)}`;
}

/** Connects, runs `use` with the client, and closes; any failure is a DownstreamError saying what happened. */
async function withClient<T>(
  server: Downstream,
  use: (client: Client, transport: StreamableHTTPClientTransport) => Promise<T>,
): Promise<T> {
  const { Client, StreamableHTTPClientTransport } = await sdk();
  const deadline = AbortSignal.timeout(server.timeout_ms);
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: server.headers },
    fetch: boundedFetch(deadline),
    reconnectionOptions: {
      maxReconnectionDelay: 0,
      initialReconnectionDelay: 0,
      reconnectionDelayGrowFactor: 1,
      maxRetries: 0,
    },
  });
  const client = new Client({ name: 'ops-hub', version });
  const options = { timeout: server.timeout_ms, signal: deadline };
  try {
    await client.connect(transport, options);
    return await use(client, transport);
  } catch (error) {
    if (error instanceof DownstreamError) throw error;
    throw new DownstreamError(describe(server, error, deadline));
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Every tool the server offers (following its pages), and the protocol version it agreed to. */
export async function listDownstreamTools(
  server: Downstream,
): Promise<{ tools: DownstreamTool[]; protocol_version: string | null }> {
  return withClient(server, async (client, transport) => {
    const tools: DownstreamTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: server.timeout_ms });
      for (const tool of page.tools) {
        tools.push({
          name: tool.name,
          ...(tool.title !== undefined ? { title: tool.title } : {}),
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          inputSchema: tool.inputSchema,
          ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
          ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
        });
      }
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1000);
    return { tools, protocol_version: transport.protocolVersion ?? null };
  });
}

/** Calls one tool and hands back its result as the downstream sent it. */
export async function callDownstreamTool(
  server: Downstream,
  tool: string,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  return withClient(server, async (client) => {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: server.timeout_ms,
    });
    return result as CallToolResult;
  });
}
