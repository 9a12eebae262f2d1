// A server-sent event stream on a Fastify reply: `event:`/`id:`/`data:` frames with ids in order, a comment heartbeat
// so proxies keep the connection, and the headers that stop buffering (Cache-Control: no-cache, X-Accel-Buffering).
import type { FastifyReply } from 'fastify';

export interface EventStream {
  send(event: string, data: unknown): void;
  /** Resolves when the client has gone or the stream was ended. */
  closed: Promise<void>;
  /** Aborted when the client disconnects. */
  signal: AbortSignal;
  end(): void;
  readonly open: boolean;
}

export function openEventStream(reply: FastifyReply, options: { heartbeatMs?: number } = {}): EventStream {
  const response = reply.raw;
  reply.hijack();
  const headers: Record<string, string> = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  };
  // Headers our hooks set on the reply (rate-limit counters, CORS) carry over to the hijacked response.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined && !(name in headers)) response.setHeader(name, value as string);
  }
  response.writeHead(200, headers);
  // A first comment at once: the client (and any proxy) sees the stream open before the first event is ready.
  response.write(': open\n\n');
  const controller = new AbortController();
  let open = true;
  let id = 0;
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const heartbeat = setInterval(() => {
    if (open) response.write(': heartbeat\n\n');
  }, options.heartbeatMs ?? 15_000);
  const finish = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    resolveClosed();
  };
  response.on('close', () => {
    if (open) controller.abort();
    finish();
  });
  return {
    send(event, data) {
      if (!open) return;
      id += 1;
      // JSON text holds no raw line break, so one data line carries it.
      const payload = JSON.stringify(data);
      response.write(`id: ${id}\nevent: ${event}\ndata: ${payload}\n\n`);
    },
    closed,
    signal: controller.signal,
    end() {
      if (!open) return;
      finish();
      response.end();
    },
    get open() {
      return open;
    },
  };
}
