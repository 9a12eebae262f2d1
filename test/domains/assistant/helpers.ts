// Reading a turn's event stream over real HTTP, as a browser would; a fake OpenAI-compatible model to drive turns.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../../helpers/app.ts';
import { ownerToken } from '../../helpers/app.ts';
import { startUpstream, type Upstream } from '../../helpers/upstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface SseEvent {
  id: number;
  event: string;
  data: Record<string, unknown>;
}

/** The app listening on loopback, so a runner program can reach its tool protocol. */
export async function listening(ta: TestApp): Promise<string> {
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

export function parseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const frame of text.split('\n\n')) {
    const lines = frame.split('\n').filter((line) => line && !line.startsWith(':'));
    if (lines.length === 0) continue;
    const field = (name: string) =>
      lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);
    events.push({
      id: Number(field('id')),
      event: field('event') ?? '',
      data: JSON.parse(field('data') ?? '{}'),
    });
  }
  return events;
}

export async function turn(
  base: string,
  path: string,
  body: unknown,
  options: { signal?: AbortSignal; token?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; events: SseEvent[] }> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token ?? ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: options.signal,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, events: parseEvents(text) };
}

/** One round of a fake model: a tool call to make, or the text that ends the turn. */
export type ModelRound = { tool: string; arguments: Record<string, unknown> } | { text: string };

/**
 * A fake OpenAI-compatible model on loopback: it streams the rounds `script` chooses, by how many tool results the
 * conversation holds so far, with a usage chunk each round. Returns the env that points the hub's runner at it.
 */
export async function fakeModel(
  t: Teardown,
  script: (round: number, messages: { role: string; content: string | null }[]) => ModelRound,
): Promise<{ env: Record<string, string>; requests: Upstream['requests'] }> {
  const model = 'fake-model';
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1763800000, model, choices, ...extra })}\n\n`;
  const upstream = await startUpstream(t, (request, response) => {
    if (request.url !== '/v1/chat/completions' || request.method !== 'POST') {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.parse(request.body) as { messages: { role: string; content: string | null }[] };
    const round = script(body.messages.filter((message) => message.role === 'tool').length, body.messages);
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const delta =
      'text' in round
        ? { role: 'assistant', content: round.text }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                index: 0,
                id: `call_${randomUUID().slice(0, 8)}`,
                type: 'function',
                function: { name: round.tool, arguments: JSON.stringify(round.arguments) },
              },
            ],
          };
    response.write(chunk([{ index: 0, delta, finish_reason: null }]));
    response.write(chunk([{ index: 0, delta: {}, finish_reason: 'text' in round ? 'stop' : 'tool_calls' }]));
    response.write(chunk([], { usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } }));
    response.end('data: [DONE]\n\n');
  });
  return {
    env: {
      ASSISTANT_RUNNER: 'openai',
      ASSISTANT_OPENAI_URL: `${upstream.url}/v1`,
      ASSISTANT_MODEL: model,
    },
    requests: upstream.requests,
  };
}
