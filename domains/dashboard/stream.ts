// The dashboard's server-sent event stream: `card` events from the card bus, an `event` for each new timeline event,
// and a `heartbeat` event every DASHBOARD_HEARTBEAT_SECONDS, so proxies keep the connection open and the browser
// notices a dead one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TimelineFollower } from '../timeline/live.ts';
import type { CardEvent } from './card-bus.ts';

/**
 * A card event as the stream sends it, serialised once however many streams it goes to: the bus hands the same
 * event object to every watcher, and a thousand streams need not stringify it a thousand times.
 */
const frames = new WeakMap<CardEvent, string>();
function cardFrame(event: CardEvent): string {
  let frame = frames.get(event);
  if (frame === undefined) {
    frame = `event: card\ndata: ${JSON.stringify(event)}\n\n`;
    frames.set(event, frame);
  }
  return frame;
}

export function openStream(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  open: Set<() => void>,
  timeline: TimelineFollower,
): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.write('retry: 5000\n\n');
  const send = (event: string, data: unknown) => {
    raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const stop = app.cards.watch((event) => raw.write(cardFrame(event)));
  const stopEvents = timeline.watch((event) => send('event', event));
  const heartbeat = setInterval(
    () => send('heartbeat', { at: new Date().toISOString() }),
    app.config.dashboard.heartbeatSeconds * 1000,
  );
  const close = () => {
    clearInterval(heartbeat);
    stop();
    stopEvents();
    open.delete(end);
  };
  const end = () => {
    close();
    raw.end();
  };
  open.add(end);
  request.raw.on('close', close);
  raw.on('close', close);
  raw.on('error', close);
}
