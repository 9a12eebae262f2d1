// New timeline events on the dashboard stream, over real HTTP: events recorded from another connection (as the
// worker process would) arrive as `event`s carrying their rows, in order.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import t from 'tap';
import { recordEvent } from '../../../domains/timeline/record.ts';
import { ownerToken, testApp } from '../../helpers/app.ts';
import { until } from '../../helpers/process.ts';

const ta = await testApp(t, { env: { DASHBOARD_HEARTBEAT_SECONDS: '1' } });
await ta.app.listen({ port: 0, host: '127.0.0.1' });
const { port } = ta.app.server.address() as AddressInfo;

/** The events named `event` the stream sent so far. */
function timelineEvents(response: http.IncomingMessage) {
  const received: Record<string, unknown>[] = [];
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (/^event: event$/m.test(block) && data) received.push(JSON.parse(data));
    }
  });
  return received;
}

t.test('an event written elsewhere reaches the stream while someone watches', async (t) => {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http
      .get(
        `http://127.0.0.1:${port}/api/dashboard/stream`,
        { headers: { authorization: `Bearer ${ownerToken}` } },
        resolve,
      )
      .on('error', reject);
  });
  t.equal(response.statusCode, 200);
  const received = timelineEvents(response);
  const other = postgres(ta.db.url, { max: 1, onnotice: () => undefined });
  t.teardown(() => other.end());
  // The stream follows the channel from its start on; pings until one arrives say it does by now.
  await until(
    'the stream to follow the timeline',
    async () => {
      await recordEvent(other, { kind: 'test.ping', title: 'Ping' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      return received.length > 0 ? true : undefined;
    },
    15_000,
  );
  received.length = 0;
  await other.begin(async (tx) => {
    await recordEvent(tx, {
      kind: 'service.down',
      severity: 'critical',
      title: 'Jellyfin went down',
      subject: { type: 'service', id: 'jellyfin' },
    });
    await recordEvent(tx, { kind: 'backup.ingested', title: 'Backup finished' });
  });
  const real = () => received.filter((event) => event.kind !== 'test.ping');
  await until('both events on the stream', async () => (real().length >= 2 ? true : undefined), 15_000);
  t.match(real(), [
    {
      id: /^\d+$/,
      kind: 'service.down',
      severity: 'critical',
      title: 'Jellyfin went down',
      subject: { type: 'service', id: 'jellyfin' },
      actor: 'system',
      space_id: null,
    },
    { kind: 'backup.ingested', subject: null },
  ]);
  response.destroy();
});
