// Reading a turn's event stream over real HTTP, as a browser would.
import type { AddressInfo } from 'node:net';
import type { TestApp } from '../../helpers/app.ts';
import { ownerToken } from '../../helpers/app.ts';

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
