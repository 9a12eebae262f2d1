// The hub's tools as a turn's agent: /api/mcp itself, so scope, tiers and limits hold whoever runs the turn. A chat
// turn posts to it in-process; a headless turn (a worker, maybe another process) posts over HTTP.
import type { RunnerInput, ToolDescription, ToolOutcome } from './runners.ts';

/** Posts one JSON-RPC request to /api/mcp with these headers, answering its status and body. */
export type McpPost = (
  payload: unknown,
  headers: Record<string, string>,
) => Promise<{ statusCode: number; body: string }>;

export function hubTools(token: string, post: McpPost): RunnerInput['tools'] {
  let id = 0;
  const rpc = async (method: string, params: unknown) => {
    id += 1;
    const response = await post(
      { jsonrpc: '2.0', id, method, params },
      {
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
    );
    const parsed = (() => {
      try {
        return JSON.parse(response.body) as Record<string, unknown>;
      } catch {
        return {};
      }
    })();
    if (response.statusCode !== 200) {
      const message = typeof parsed.message === 'string' ? parsed.message : response.body.slice(0, 200);
      throw new Error(`${response.statusCode}: ${message}`);
    }
    const body = parsed as { result?: Record<string, unknown>; error?: { message?: string } };
    if (body.error) throw new Error(body.error.message ?? 'tool protocol error');
    return body.result ?? {};
  };
  return {
    async list() {
      const result = await rpc('tools/list', {});
      return (result.tools as ToolDescription[]) ?? [];
    },
    async call(name, args): Promise<ToolOutcome> {
      try {
        const result = await rpc('tools/call', { name, arguments: args ?? {} });
        const blocks = Array.isArray(result.content)
          ? (result.content as { type: string; text?: string }[])
          : [];
        return {
          content: blocks.map((block) => (block.type === 'text' ? (block.text ?? '') : '')).join(''),
          structured: result.structuredContent,
          is_error: result.isError === true,
        };
      } catch (error) {
        return { content: (error as Error).message, is_error: true };
      }
    },
  };
}
