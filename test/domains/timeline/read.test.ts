// Reading the timeline: newest first with filters (time, kinds and `area.*`, subject, words) and a cursor that pages
// through events sharing one moment without losing or repeating any; "around" a moment; a scoped agent sees only its
// space's and the global events, over REST and through the `timeline` tool with the SDK's own client; bad input is
// a clear 400; the daily purge removes only what is older than the retention.
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { readSetting } from '../../../domains/settings/registry.ts';
import { timelinePurgeTask } from '../../../domains/timeline/jobs.ts';
import { recordEvent } from '../../../domains/timeline/record.ts';
import { timelineRetentionSetting } from '../../../domains/timeline/setting.ts';
import { hub } from '../../../modules.ts';
import { enqueue } from '../../../worker/enqueue.ts';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';

const ta = await testApp(t, { worker: true });
const home = await createSpace(ta, 'Home');
const work = await createSpace(ta, 'Work');
const base = Date.parse('2026-03-01T02:00:00Z');
const minutes = (n: number) => new Date(base + n * 60_000);

// The moment of the outage: a service down at 02:03, a backup during it, a page edit in each space, and one later.
await recordEvent(ta.sql, {
  kind: 'service.down',
  severity: 'critical',
  title: 'Jellyfin went down',
  subject: { type: 'service', id: 'jellyfin' },
  at: minutes(3),
});
await recordEvent(ta.sql, {
  kind: 'backup.ingested',
  title: 'Backup of the media share finished',
  subject: { type: 'backup', id: 'media' },
  at: minutes(10),
});
await recordEvent(ta.sql, {
  kind: 'device.first_seen',
  severity: 'notice',
  title: 'New device 3c:22:fb:00:00:01 (Apple)',
  subject: { type: 'device', id: '3c:22:fb:00:00:01' },
  at: minutes(10),
});
await recordEvent(ta.sql, {
  kind: 'page.updated',
  title: 'Page “Home runbook” updated',
  subject: { type: 'page', id: 'p-home' },
  space_id: home.id,
  actor: 'owner',
  at: minutes(10),
});
await recordEvent(ta.sql, {
  kind: 'page.updated',
  title: 'Page “Work plans” updated',
  subject: { type: 'page', id: 'p-work' },
  space_id: work.id,
  actor: 'owner',
  at: minutes(12),
});
await recordEvent(ta.sql, {
  kind: 'service.up',
  title: 'Jellyfin is back',
  subject: { type: 'service', id: 'jellyfin' },
  at: minutes(90),
});

const titles = (body: { items: { title: string }[] }) => body.items.map((item) => item.title);
const read = async (query: string, token?: string) => {
  const request = { method: 'GET' as const, url: `/api/timeline?${query}` };
  const response = token ? await ta.asAgent(token, request) : await ta.asOwner(request);
  return response;
};
const window = `since=${minutes(0).toISOString()}&until=${minutes(120).toISOString()}`;

t.test('newest first, with kinds, area patterns, subject, words and a time range', async (t) => {
  const all = await read(window);
  t.equal(all.statusCode, 200, all.body);
  t.same(titles(all.json()), [
    'Jellyfin is back',
    'Page “Work plans” updated',
    'Page “Home runbook” updated',
    'New device 3c:22:fb:00:00:01 (Apple)',
    'Backup of the media share finished',
    'Jellyfin went down',
  ]);
  t.match(all.json().items[5], {
    kind: 'service.down',
    severity: 'critical',
    subject: { type: 'service', id: 'jellyfin' },
    actor: 'system',
    space_id: null,
    at: minutes(3).toISOString(),
  });
  t.same(titles((await read(`${window}&kinds=service.*`)).json()), [
    'Jellyfin is back',
    'Jellyfin went down',
  ]);
  t.same(titles((await read(`${window}&kinds=service.down,device.*`)).json()), [
    'New device 3c:22:fb:00:00:01 (Apple)',
    'Jellyfin went down',
  ]);
  t.same(titles((await read(`${window}&kinds=device.first_seen`)).json()), [
    'New device 3c:22:fb:00:00:01 (Apple)',
  ]);
  t.same(titles((await read(`${window}&subject=service:jellyfin`)).json()), [
    'Jellyfin is back',
    'Jellyfin went down',
  ]);
  // A MAC address keeps its colons: only the first one separates type from id.
  t.same(titles((await read(`${window}&subject=device:3c:22:fb:00:00:01`)).json()), [
    'New device 3c:22:fb:00:00:01 (Apple)',
  ]);
  t.same(titles((await read(`${window}&q=jellyfin`)).json()), ['Jellyfin is back', 'Jellyfin went down']);
  t.same(
    titles((await read(`${window}&q=backups`)).json()),
    ['Backup of the media share finished'],
    'stemmed',
  );
  const range = `since=${minutes(10).toISOString()}&until=${minutes(12).toISOString()}`;
  t.same(titles((await read(range)).json()).length, 3, 'since is inclusive, until exclusive');
});

t.test('the cursor pages through events of one moment without losing or repeating any', async (t) => {
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const response = await read(`${window}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    t.equal(response.statusCode, 200, response.body);
    const body: { items: { id: string }[]; next_cursor: string | null } = response.json();
    seen.push(...body.items.map((item) => item.id));
    cursor = body.next_cursor;
    pages++;
  } while (cursor && pages < 10);
  t.equal(pages, 3);
  const everything = (await read(window)).json().items.map((item: { id: string }) => item.id);
  t.same(seen, everything);
  const skipped = (await read(`${window}&offset=4`)).json().items.map((item: { id: string }) => item.id);
  t.same(skipped, everything.slice(4), 'offset skips as on every list');
});

t.test('around a moment: what happened within the minutes either side, oldest first', async (t) => {
  const response = await ta.asOwner({
    method: 'GET',
    url: `/api/timeline/around?at=${minutes(4).toISOString()}&minutes=7`,
  });
  t.equal(response.statusCode, 200, response.body);
  const body = response.json();
  t.same(titles(body), [
    'Jellyfin went down',
    'Backup of the media share finished',
    'New device 3c:22:fb:00:00:01 (Apple)',
    'Page “Home runbook” updated',
  ]);
  t.notOk(titles(body).includes('Jellyfin is back'), 'the recovery, 85 minutes later, is outside');
  t.equal(body.from, minutes(-3).toISOString());
  t.equal(body.to, minutes(11).toISOString());
  t.equal(body.truncated, false);
  const defaults = await ta.asOwner({
    method: 'GET',
    url: `/api/timeline/around?at=${minutes(60).toISOString()}`,
  });
  t.same(titles(defaults.json()), ['Jellyfin is back'], '± 30 minutes by default');
  const tooWide = await ta.asOwner({
    method: 'GET',
    url: `/api/timeline/around?at=${minutes(60).toISOString()}&minutes=100000`,
  });
  t.equal(tooWide.statusCode, 400);
});

t.test('a scoped agent sees its space’s events and the global ones; an unscoped one sees all', async (t) => {
  const scoped = await createAgent(ta, { tier: 'read', space_id: home.id });
  const unscoped = await createAgent(ta, { tier: 'read' });
  const mine = await read(window, scoped.token);
  t.equal(mine.statusCode, 200, mine.body);
  t.same(titles(mine.json()), [
    'Jellyfin is back',
    'Page “Home runbook” updated',
    'New device 3c:22:fb:00:00:01 (Apple)',
    'Backup of the media share finished',
    'Jellyfin went down',
  ]);
  const around = await ta.asAgent(scoped.token, {
    method: 'GET',
    url: `/api/timeline/around?at=${minutes(10).toISOString()}&minutes=5`,
  });
  t.notOk(titles(around.json()).includes('Page “Work plans” updated'), 'around holds the scope too');
  t.equal(titles((await read(window, unscoped.token)).json()).length, 6);
});

t.test('the timeline tool takes the same parameters and holds the scope', async (t) => {
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as AddressInfo;
  const scoped = await createAgent(ta, { tier: 'read', space_id: work.id });
  const client = new Client({ name: 'timeline-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/api/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${scoped.token}` } },
    }),
  );
  t.teardown(() => client.close());
  // Listed first, so the client checks the structured result against the tool's output schema.
  const { tools } = await client.listTools();
  t.match(tools.find((tool) => tool.name === 'timeline')?.annotations, { readOnlyHint: true });
  const result = (await client.callTool({
    name: 'timeline',
    arguments: { since: minutes(0).toISOString(), until: minutes(120).toISOString(), kinds: 'page.*' },
  })) as {
    isError?: boolean;
    structuredContent?: { items: { title: string }[]; next_cursor: string | null };
  };
  t.notOk(result.isError, JSON.stringify(result));
  t.same(
    result.structuredContent?.items.map((item) => item.title),
    ['Page “Work plans” updated'],
  );
  const paged = (await client.callTool({
    name: 'timeline',
    arguments: { since: minutes(0).toISOString(), until: minutes(120).toISOString(), limit: 1 },
  })) as { structuredContent?: { items: { title: string }[]; next_cursor: string | null } };
  t.same(
    paged.structuredContent?.items.map((item) => item.title),
    ['Jellyfin is back'],
  );
  t.type(paged.structuredContent?.next_cursor, 'string');
  const bad = (await client.callTool({ name: 'timeline', arguments: { cursor: 'nonsense' } })) as {
    isError?: boolean;
    content: { text?: string }[];
  };
  t.ok(bad.isError);
  t.match(bad.content[0].text, /cursor/);
});

t.test('bad input is a clear 400 with its code', async (t) => {
  const cursor = await read('cursor=not-a-cursor');
  t.equal(cursor.statusCode, 400);
  t.equal(cursor.json().code, 'TIMELINE_CURSOR_INVALID');
  const range = await read(`since=${minutes(10).toISOString()}&until=${minutes(5).toISOString()}`);
  t.equal(range.statusCode, 400);
  t.equal(range.json().code, 'TIMELINE_RANGE_INVALID');
  for (const query of ['kinds=DROP TABLE', 'subject=nocolon', 'limit=0', 'since=yesterday', 'extra=1']) {
    const response = await read(query);
    t.equal(response.statusCode, 400, query);
  }
  t.equal((await ta.anon({ method: 'GET', url: '/api/timeline' })).statusCode, 401);
});

t.test('the daily purge removes only what is older than the retention', async (t) => {
  t.ok(
    hub.cron({ sql: ta.sql, config: ta.config }).some((item) => item.task.name === 'timeline.purge'),
    'the purge is scheduled',
  );
  t.equal(await readSetting(ta.sql, timelineRetentionSetting), 365, 'a year by default');
  const now = Date.now();
  await recordEvent(ta.sql, {
    kind: 'test.old',
    title: 'Eleven days ago',
    at: new Date(now - 11 * 86_400_000),
  });
  await recordEvent(ta.sql, {
    kind: 'test.recent',
    title: 'Nine days ago',
    at: new Date(now - 9 * 86_400_000),
  });
  const put = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/timeline.retention_days',
    payload: { value: 10 },
  });
  t.equal(put.statusCode, 200, put.body);
  await enqueue(ta.sql, timelinePurgeTask, {});
  const deadline = Date.now() + 60_000;
  let kinds: string[] = [];
  while (Date.now() < deadline) {
    kinds = (await ta.sql<{ kind: string }[]>`select kind from events where kind like 'test.%'`).map(
      (row) => row.kind,
    );
    if (!kinds.includes('test.old')) break;
    await sleep(200);
  }
  t.same(kinds, ['test.recent']);
  // The outage events of March 2026 are older than ten days as well: gone, while today's page events stay.
  t.equal((await read(window)).json().items.length, 0);
});
