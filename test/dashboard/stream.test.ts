// The dashboard stream over real HTTP: `card` events for each card at the start and on change, and heartbeats.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createAgent, ownerToken, testApp } from '../helpers/app.ts';

interface Event {
  event: string;
  data: { type?: string; data?: Record<string, unknown> } & Record<string, unknown>;
}

/** Reads server-sent events; `next(predicate)` resolves with the first event (from now or earlier) that matches. */
function events(response: http.IncomingMessage) {
  const seen: Event[] = [];
  const waiting: { test: (event: Event) => boolean; resolve: (event: Event) => void; from: number }[] = [];
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (name && data) {
        const event = { event: name, data: JSON.parse(data) };
        seen.push(event);
        for (const waiter of [...waiting]) {
          if (waiter.test(event)) {
            waiting.splice(waiting.indexOf(waiter), 1);
            waiter.resolve(event);
          }
        }
      }
      end = buffer.indexOf('\n\n');
    }
  });
  return {
    seen,
    next(test: (event: Event) => boolean, from = 0): Promise<Event> {
      const found = seen.slice(from).find(test);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiting.push({ test, resolve, from }));
    },
  };
}

t.test('card events and heartbeats; a new backup run is pushed at once', async (t) => {
  const ta = await testApp(t, { env: { DASHBOARD_HEARTBEAT_SECONDS: '1', HOST_SAMPLE_SECONDS: '1' } });
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as AddressInfo;

  const agent = await createAgent(ta, { tier: 'owner' });
  const refused = await ta.asAgent(agent.token, { method: 'GET', url: '/api/dashboard/stream' });
  t.equal(refused.statusCode, 403, 'the stream is the owner’s');

  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http
      .get(
        `http://127.0.0.1:${port}/api/dashboard/stream`,
        { headers: { authorization: `Bearer ${ownerToken}` } },
        resolve,
      )
      .on('error', reject);
  });
  t.teardown(() => response.destroy());
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^text\/event-stream/);
  const stream = events(response);

  const host = await stream.next((e) => e.event === 'card' && e.data.type === 'host');
  t.type(host.data.data?.memory, 'object', 'host figures');
  const hostCount = () => stream.seen.filter((e) => e.data.type === 'host').length;
  const firstHost = stream.seen.indexOf(host);
  await stream.next((e) => e.event === 'card' && e.data.type === 'host', firstHost + 1);
  t.ok(hostCount() >= 2, 'the host card comes again as it is sampled');
  const backups = await stream.next((e) => e.event === 'card' && e.data.type === 'backups');
  t.match(backups.data.data, { last_run: null, stale: true });
  const weather = await stream.next((e) => e.event === 'card' && e.data.type === 'weather');
  t.same(weather.data.data, { configured: false });
  await stream.next((e) => e.event === 'heartbeat');

  const mark = stream.seen.length;
  const posted = await ta.asOwner({
    method: 'POST',
    url: '/api/backups',
    payload: {
      started_at: '2026-11-22T02:00:00Z',
      finished_at: '2026-11-22T02:10:00Z',
      status: 'ok',
      target: { name: 'nas', free_bytes: 1, total_bytes: 2 },
      guests: [],
    },
  });
  t.equal(posted.statusCode, 201);
  const pushed = await stream.next((e) => e.data.type === 'backups', mark);
  t.match(pushed.data.data, { last_run: { status: 'ok' } });
});
