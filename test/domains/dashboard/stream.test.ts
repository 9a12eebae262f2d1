// The dashboard stream over real HTTP: `card` events for each card at the start and on change, and heartbeats; data
// written outside the request path (the worker's speed tests and health checks) is pushed as soon as it commits.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { anotherProcess, createAgent, ownerToken, testApp } from '../../helpers/app.ts';
import { addRouter, backupRun, recordSpeedTest, recordUsage } from './seed.ts';

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

/** The owner's stream on `port`, ended at teardown. */
async function openStream(t: Test, port: number): Promise<http.IncomingMessage> {
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
  return response;
}

t.test('card events and heartbeats; a new backup run is pushed at once', async (t) => {
  const ta = await testApp(t, { env: { DASHBOARD_HEARTBEAT_SECONDS: '1', HOST_SAMPLE_SECONDS: '1' } });
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as AddressInfo;

  const agent = await createAgent(ta, { tier: 'owner' });
  const refused = await ta.asAgent(agent.token, { method: 'GET', url: '/api/dashboard/stream' });
  t.equal(refused.statusCode, 403, 'the stream is the owner’s');

  const response = await openStream(t, port);
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
    payload: backupRun,
  });
  t.equal(posted.statusCode, 201);
  const pushed = await stream.next((e) => e.data.type === 'backups', mark);
  t.match(pushed.data.data, { last_run: { status: 'ok' } });
});

t.test('a backup run reported to another process of the hub is pushed to this one’s stream', async (t) => {
  const ta = await testApp(t);
  const other = await anotherProcess(t, ta);
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as AddressInfo;
  const stream = events(await openStream(t, port));
  await stream.next((e) => e.event === 'card' && e.data.type === 'backups');

  const mark = stream.seen.length;
  const posted = await other.inject({
    method: 'POST',
    url: '/api/backups',
    headers: { authorization: `Bearer ${ownerToken}` },
    payload: backupRun,
  });
  t.equal(posted.statusCode, 201);
  // Long before the card's own 60 s refresh.
  const pushed = await Promise.race([
    stream.next((e) => e.data.type === 'backups', mark),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('not pushed within 10 s')), 10_000)),
  ]);
  t.match(pushed.data.data, { last_run: { status: 'ok' } });
});

t.test(
  'speed test, service health and AI usage cards: their data at the start, changes pushed as written',
  async (t) => {
    const ta = await testApp(t);
    await recordSpeedTest(ta, { download: 412.5, upload: 38.2, ping: 9.1, hoursAgo: 1 });
    const serviceId = await addRouter(ta);
    await recordUsage(ta, { input: 1200, output: 300 });

    await ta.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = ta.app.server.address() as AddressInfo;
    const stream = events(await openStream(t, port));
    const card = (type: string, from = 0) =>
      stream.next((e) => e.event === 'card' && e.data.type === type, from);

    const speed = await card('speedtest');
    t.match(speed.data.data, {
      items: [{ download_mbps: 412.5, upload_mbps: 38.2, ping_ms: 9.1 }],
      summary: { count: 1, download_mbps: { median: 412.5 } },
    });
    const health = await card('health');
    t.match(health.data.data, {
      groups: [
        { category: 'Network', total: 1, healthy: 0, services: [{ name: 'Router', state: 'pending' }] },
      ],
    });
    const usage = await card('ai-usage');
    t.match(usage.data.data, { today: { input_tokens: 1200, output_tokens: 300, requests: 1 } });

    // What the worker writes, from its own connection: the cards change long before their 60 s refresh.
    const worker = postgres(ta.db.url, { max: 1, onnotice: () => undefined });
    t.teardown(() => worker.end());
    const soon = <T>(promise: Promise<T>, what: string) =>
      Promise.race([
        promise,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`${what} was not pushed`)), 15_000),
        ),
      ]);

    let mark = stream.seen.length;
    await recordSpeedTest({ sql: worker }, { download: 98.4, upload: 20.1, ping: 14 });
    const measured = await soon(card('speedtest', mark), 'the new speed test');
    t.match(measured.data.data, {
      items: [{ download_mbps: 98.4 }, { download_mbps: 412.5 }],
      summary: { count: 2 },
    });

    mark = stream.seen.length;
    await worker`
    update monitored_services set state = 'up', latency_ms = 3, checked_at = now(), since = now()
    where id = ${serviceId}`;
    const checked = await soon(card('health', mark), 'the health check');
    t.match(checked.data.data, { groups: [{ healthy: 1, services: [{ state: 'up', latency_ms: 3 }] }] });

    mark = stream.seen.length;
    await recordUsage(ta, { input: 800, output: 100 });
    const reported = await soon(card('ai-usage', mark), 'the usage record');
    t.match(reported.data.data, { today: { input_tokens: 2000, output_tokens: 400, requests: 2 } });
  },
);
