// Feeds against a loopback server shaped like real feed hosts: RSS 2.0 with ETag (answering 304 to a matching
// If-None-Match), Atom with Last-Modified, JSON Feed, and a malformed document.
import t from 'tap';
import { pollFeed, queueDueFeeds } from '../../../domains/feeds/poll.ts';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

interface Post {
  guid: string;
  link: string;
  title: string;
}

const rssPosts: Post[] = [
  { guid: 'post-1', link: '/post/1', title: 'First post' },
  // The same link under another guid: one more item, not one more capture.
  { guid: 'post-1-again', link: '/post/1', title: 'First post, reposted' },
];
let rssVersion = 1;
const atomModified = 'Mon, 02 Jan 2023 10:00:00 GMT';

const site = await startUpstream(t, (request, response) => {
  const url = new URL(request.url ?? '/', 'http://x');
  if (url.pathname === '/rss.xml') {
    const etag = `"v${rssVersion}"`;
    if (request.headers['if-none-match'] === etag) {
      response.writeHead(304, { etag });
      return response.end();
    }
    response.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8', etag });
    const items = rssPosts
      .map(
        (post) =>
          `<item><title>${post.title}</title><link>${site.url}${post.link}</link><guid>${post.guid}</guid>` +
          '<pubDate>Mon, 02 Jan 2023 10:00:00 GMT</pubDate><description>&lt;p&gt;About routers&lt;/p&gt;</description></item>',
      )
      .join('');
    return response.end(
      `<?xml version="1.0"?><rss version="2.0"><channel><title>Router news</title><link>${site.url}/</link>${items}</channel></rss>`,
    );
  }
  if (url.pathname === '/atom.xml') {
    if (request.headers['if-modified-since'] === atomModified) {
      response.writeHead(304);
      return response.end();
    }
    response.writeHead(200, { 'content-type': 'application/atom+xml', 'last-modified': atomModified });
    return response.end(
      '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title type="text">Atom log</title>' +
        '<id>urn:atom-log</id><updated>2023-01-02T10:00:00Z</updated>' +
        '<entry><title>Entry one</title><id>urn:entry:1</id><link rel="alternate" href="/entries/1"/>' +
        '<updated>2023-01-02T10:00:00Z</updated><summary>A summary of one</summary></entry></feed>',
    );
  }
  if (url.pathname === '/feed.json') {
    response.writeHead(200, { 'content-type': 'application/feed+json' });
    return response.end(
      JSON.stringify({
        version: 'https://jsonfeed.org/version/1.1',
        title: 'JSON journal',
        items: [
          {
            id: 'j1',
            url: `${site.url}/journal/1`,
            title: 'Journal one',
            content_text: 'Plain words',
            date_published: '2023-01-03T10:00:00Z',
          },
        ],
      }),
    );
  }
  if (url.pathname === '/broken.xml') {
    response.writeHead(200, { 'content-type': 'application/xml' });
    return response.end('<html><body>This is no feed</body></html>');
  }
  response.writeHead(404);
  response.end();
});

const ta = await testApp(t, { env: { INGEST_ALLOW_PRIVATE: '127.0.0.1/32' } });
const deps = { sql: ta.sql, config: ta.config };

async function addFeed(app: TestApp, payload: Record<string, unknown>) {
  const res = await app.asOwner({ method: 'POST', url: '/api/feeds', payload });
  if (res.statusCode !== 201) throw new Error(`adding a feed failed: ${res.body}`);
  return res.json() as { id: string; space_id: string; [key: string]: unknown };
}

async function items(feedId: string, query = '') {
  const res = await ta.asOwner({ method: 'GET', url: `/api/feeds/${feedId}/items${query}` });
  return res.json() as {
    items: {
      id: string;
      title: string;
      url: string | null;
      read_at: string | null;
      capture_id: string | null;
      summary: string;
      tags: string[];
    }[];
    total: number;
  };
}

t.test('with no feed yet the OPML export is an empty document, not an error', async (t) => {
  const empty = await ta.asOwner({ method: 'GET', url: '/api/feeds/export.opml' });
  t.equal(empty.statusCode, 200, empty.body);
  t.match(empty.body, /<opml version="2\.0">.*<body\/><\/opml>/s);
});

t.test(
  'RSS: new items, a duplicate link captured once, a 304 with the ETag, an update adding an item',
  async (t) => {
    const feed = await addFeed(ta, {
      url: `${site.url}/rss.xml`,
      capture: 'all',
      tags: [' Tech ', 'tech', 'LAN'],
    });
    t.match(feed, {
      title: '',
      tags: ['Tech', 'LAN'],
      interval_minutes: 60,
      capture: 'all',
      enabled: true,
      unread: 0,
    });

    const first = await pollFeed(deps, feed.id);
    t.same(first, { status: 'updated', added: 2, captured: 1 });
    const listed = await items(feed.id);
    t.equal(listed.total, 2);
    t.same(listed.items.map((i) => i.url).sort(), [`${site.url}/post/1`, `${site.url}/post/1`]);
    t.equal(listed.items[0].summary, 'About routers', 'markup is taken out of summaries');
    t.same(listed.items[0].tags, ['Tech', 'LAN'], "items take the feed's tags");
    const captures = await ta.sql<{ id: string; url: string; job_id: string }[]>`
    select id, url, job_id::text from captures where space_id = ${feed.space_id}`;
    t.same(
      captures.map((c) => c.url),
      [`${site.url}/post/1`],
      'the link is captured once',
    );
    t.ok(captures[0].job_id, 'with its ingest job');
    t.same(
      new Set(listed.items.map((i) => i.capture_id)),
      new Set([captures[0].id]),
      'both items point at it',
    );

    const afterFirst = (await ta.asOwner({ method: 'GET', url: `/api/feeds/${feed.id}` })).json();
    t.match(afterFirst, { title: 'Router news', error: null, failures: 0, unread: 2 });

    const unchanged = await pollFeed(deps, feed.id);
    t.same(unchanged, { status: 'not_modified', added: 0, captured: 0 });
    const conditional = site.requests.filter((r) => r.url === '/rss.xml').at(-1);
    t.equal(conditional?.headers['if-none-match'], '"v1"', 'the ETag is sent back');
    t.equal((await items(feed.id)).total, 2, 'a 304 changes nothing');

    rssPosts.push({ guid: 'post-2', link: '/post/2', title: 'Second post' });
    rssVersion = 2;
    const updated = await pollFeed(deps, feed.id);
    t.same(updated, { status: 'updated', added: 1, captured: 1 }, 'only the new item is added and captured');
    const [{ count }] = await ta.sql<{ count: number }[]>`
    select count(*)::int from captures where space_id = ${feed.space_id}`;
    t.equal(count, 2);

    // Read state: the unread filter, marking read and unread again.
    const all = await items(feed.id);
    const target = all.items.find((i) => i.title === 'Second post');
    if (!target) throw new Error('the new item is missing');
    const read = await ta.asOwner({
      method: 'PATCH',
      url: `/api/feeds/${feed.id}/items/${target.id}`,
      payload: { read: true },
    });
    t.equal(read.statusCode, 200);
    t.ok(read.json().read_at);
    const unread = await items(feed.id, '?unread=true');
    t.equal(unread.total, 2);
    t.notOk(unread.items.some((i) => i.id === target.id));
    const again = await ta.asOwner({
      method: 'PATCH',
      url: `/api/feeds/${feed.id}/items/${target.id}`,
      payload: { read: false },
    });
    t.equal(again.json().read_at, null);
  },
);

t.test('feed items are found by search as kind feed_items, in their space', async (t) => {
  const feed = await addFeed(ta, {
    url: `${site.url}/feed.json?search`,
    space_id: (await createSpace(ta)).id,
  });
  await pollFeed(deps, feed.id);
  const found = await ta.asOwner({ method: 'GET', url: '/api/search?q=journal&kinds=feed_items' });
  t.equal(found.statusCode, 200, found.body);
  t.match(found.json(), {
    items: [
      { kind: 'feed_items', title: 'Journal one', url: `${site.url}/journal/1`, space_id: feed.space_id },
    ],
  });
  t.ok(found.json().facets.feed_items >= 1);
  const elsewhere = await createSpace(ta);
  const outside = await ta.asOwner({
    method: 'GET',
    url: `/api/search?q=journal&kinds=feed_item&space_id=${elsewhere.id}`,
  });
  t.equal(outside.json().total, 0, 'a space filter holds');
});

t.test('Atom (with Last-Modified) and JSON Feed', async (t) => {
  const atom = await addFeed(ta, { url: `${site.url}/atom.xml` });
  t.same(await pollFeed(deps, atom.id), { status: 'updated', added: 1, captured: 0 });
  t.match((await items(atom.id)).items, [
    { title: 'Entry one', url: `${site.url}/entries/1`, summary: 'A summary of one', capture_id: null },
  ]);
  t.same(await pollFeed(deps, atom.id), { status: 'not_modified', added: 0, captured: 0 });
  t.equal(
    site.requests.filter((r) => r.url === '/atom.xml').at(-1)?.headers['if-modified-since'],
    atomModified,
  );

  const json = await addFeed(ta, { url: `${site.url}/feed.json`, title: 'Mine' });
  t.same(await pollFeed(deps, json.id), { status: 'updated', added: 1, captured: 0 });
  t.match((await items(json.id)).items, [
    { title: 'Journal one', url: `${site.url}/journal/1`, summary: 'Plain words' },
  ]);
  t.same(
    await pollFeed(deps, json.id),
    { status: 'updated', added: 0, captured: 0 },
    'seen items are not added again',
  );
  t.match(
    (await ta.asOwner({ method: 'GET', url: `/api/feeds/${json.id}` })).json(),
    { title: 'Mine' },
    "the owner's title is kept",
  );
});

t.test('a malformed feed records its error and backs off; the others are still polled', async (t) => {
  const db = await testApp(t, { env: { INGEST_ALLOW_PRIVATE: '127.0.0.1/32' } });
  const dbDeps = { sql: db.sql, config: db.config };
  const broken = await addFeed(db, { url: `${site.url}/broken.xml`, interval_minutes: 10 });
  const good = await addFeed(db, { url: `${site.url}/feed.json` });
  const missing = await addFeed(db, { url: `${site.url}/gone.xml` });

  const queued = await queueDueFeeds(dbDeps);
  t.same(queued.sort(), [broken.id, good.id, missing.id].sort(), 'every due feed gets its own job');
  const jobs = await db.sql<{ key: string }[]>`
    select key from graphile_worker.jobs where task_identifier = 'feeds.fetch' order by key`;
  t.equal(jobs.length, 3);
  t.same(await queueDueFeeds(dbDeps), [], 'claimed feeds are not queued again before they are due');

  const before = Date.now();
  const failed = await pollFeed(dbDeps, broken.id);
  t.match(failed, { status: 'failed', error: /not a feed/ });
  t.same(await pollFeed(dbDeps, good.id), { status: 'updated', added: 1, captured: 0 });
  t.match(await pollFeed(dbDeps, missing.id), { status: 'failed', error: /HTTP 404/ });

  const shown = (await db.asOwner({ method: 'GET', url: `/api/feeds/${broken.id}` })).json();
  t.match(shown, { error: /not a feed/, failures: 1 });
  const wait = new Date(shown.next_poll_at).getTime() - before;
  t.ok(wait >= 19 * 60_000, `backed off past its 10-minute interval (${Math.round(wait / 60_000)} min)`);
  await pollFeed(dbDeps, broken.id);
  const twice = (await db.asOwner({ method: 'GET', url: `/api/feeds/${broken.id}` })).json();
  t.equal(twice.failures, 2);
  t.ok(new Date(twice.next_poll_at).getTime() - Date.now() >= 39 * 60_000, 'and further each time');
  t.match((await db.asOwner({ method: 'GET', url: `/api/feeds/${good.id}` })).json(), {
    error: null,
    failures: 0,
  });
});

t.test('feed URLs follow the capture address rules', async (t) => {
  const strict = await testApp(t);
  const refused = await strict.asOwner({
    method: 'POST',
    url: '/api/feeds',
    payload: { url: `${site.url}/rss.xml` },
  });
  t.equal(refused.statusCode, 400);
  t.equal(refused.json().code, 'URL_REFUSED');
  const twice = await ta.asOwner({
    method: 'POST',
    url: '/api/feeds',
    payload: { url: `${site.url}/rss.xml` },
  });
  t.equal(twice.statusCode, 409, 'a URL once per space');
});

t.test('agents read feeds and items, in their scope, and change nothing', async (t) => {
  const space = await createSpace(ta);
  const feed = await addFeed(ta, { url: `${site.url}/feed.json?agents`, space_id: space.id });
  await pollFeed(deps, feed.id);
  const reader = await createAgent(ta, { tier: 'read' });
  const writer = await createAgent(ta, { tier: 'owner' });
  const elsewhere = await createAgent(ta, { tier: 'read', space_id: (await createSpace(ta)).id });

  const list = await ta.asAgent(reader.token, { method: 'GET', url: '/api/feeds' });
  t.equal(list.statusCode, 200);
  t.ok(list.json().items.some((f: { id: string }) => f.id === feed.id));
  t.notOk('etag' in list.json().items[0], 'validators stay inside');
  t.equal((await ta.asAgent(reader.token, { method: 'GET', url: `/api/feeds/${feed.id}` })).statusCode, 200);
  t.equal(
    (await ta.asAgent(reader.token, { method: 'GET', url: `/api/feeds/${feed.id}/items` })).json().total,
    1,
  );

  const item = (await items(feed.id)).items[0];
  for (const request of [
    { method: 'POST' as const, url: '/api/feeds', payload: { url: `${site.url}/atom.xml?agent` } },
    { method: 'PATCH' as const, url: `/api/feeds/${feed.id}`, payload: { enabled: false } },
    { method: 'DELETE' as const, url: `/api/feeds/${feed.id}` },
    { method: 'PATCH' as const, url: `/api/feeds/${feed.id}/items/${item.id}`, payload: { read: true } },
    { method: 'GET' as const, url: '/api/feeds/export.opml' },
  ]) {
    const res = await ta.asAgent(writer.token, request);
    t.equal(res.statusCode, 403, `${request.method} ${request.url}`);
    t.equal(res.json().code, 'OWNER_ONLY');
  }

  const call = await ta.asAgent(reader.token, {
    method: 'POST',
    url: '/api/mcp',
    headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_feeds', arguments: { space_id: space.id } },
    },
  });
  t.equal(call.statusCode, 200, call.body);
  const body = call.body.startsWith('{') ? call.json() : JSON.parse(call.body.split('data: ')[1]);
  t.match(
    body.result.structuredContent,
    { total: 1, items: [{ id: feed.id, unread: 1 }] },
    'the list_feeds tool',
  );
  t.notOk('etag' in body.result.structuredContent.items[0]);

  const scoped = await ta.asAgent(elsewhere.token, { method: 'GET', url: `/api/feeds/${feed.id}` });
  t.equal(scoped.statusCode, 404, "another space's feed does not exist for a scoped agent");
  t.equal(
    (await ta.asAgent(elsewhere.token, { method: 'GET', url: `/api/feeds/${feed.id}/items` })).statusCode,
    404,
  );
  t.notOk(
    (await ta.asAgent(elsewhere.token, { method: 'GET', url: '/api/feeds' }))
      .json()
      .items.some((f: { id: string }) => f.id === feed.id),
  );
});

t.test('OPML: nested outlines become tags, and an export imports back the same', async (t) => {
  const db = await testApp(t);
  const opml = `<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>Reader export</title></head>
  <body>
    <outline text="Tech">
      <outline text="Home lab">
        <outline type="rss" text="Router news" title="Router news" xmlUrl="https://routers.example/rss.xml" htmlUrl="https://routers.example/"/>
      </outline>
      <outline type="rss" text="Atom log" xmlUrl="https://atom.example/atom.xml" category="/News,/tech"/>
    </outline>
    <outline type="rss" text="Loose &amp; free" xmlUrl="https://loose.example/feed.json"/>
    <outline text="A folder with a link only" htmlUrl="https://nothing.example/"/>
  </body>
</opml>`;
  const imported = await db.asOwner({
    method: 'POST',
    url: '/api/feeds/import',
    headers: { 'content-type': 'text/x-opml' },
    payload: opml,
  });
  t.equal(imported.statusCode, 200, imported.body);
  t.match(imported.json(), { created: 3, existing: 0 });
  const shape = (feeds: { url: string; title: string; tags: string[] }[]) =>
    feeds.map(({ url, title, tags }) => ({ url, title, tags })).sort((a, b) => a.url.localeCompare(b.url));
  const expected = [
    { url: 'https://atom.example/atom.xml', title: 'Atom log', tags: ['Tech', 'News'] },
    { url: 'https://loose.example/feed.json', title: 'Loose & free', tags: [] },
    { url: 'https://routers.example/rss.xml', title: 'Router news', tags: ['Tech', 'Home lab'] },
  ];
  t.same(shape(imported.json().feeds), expected);

  const again = await db.asOwner({
    method: 'POST',
    url: '/api/feeds/import',
    headers: { 'content-type': 'application/xml' },
    payload: opml,
  });
  t.match(again.json(), { created: 0, existing: 3 }, 'an import twice adds nothing');

  const exported = await db.asOwner({ method: 'GET', url: '/api/feeds/export.opml' });
  t.equal(exported.statusCode, 200);
  t.match(exported.headers['content-type'], /^text\/x-opml/);
  t.match(exported.body, /<opml version="2.0">/);

  const other = await createSpace(db);
  const roundTrip = await db.asOwner({
    method: 'POST',
    url: `/api/feeds/import?space_id=${other.id}`,
    headers: { 'content-type': 'text/x-opml' },
    payload: exported.body,
  });
  t.equal(roundTrip.statusCode, 200, roundTrip.body);
  t.same(shape(roundTrip.json().feeds), expected, 'the round trip keeps URLs, titles and tags');

  const bad = await db.asOwner({
    method: 'POST',
    url: '/api/feeds/import',
    headers: { 'content-type': 'text/x-opml' },
    payload: '<rss version="2.0"></rss>',
  });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().code, 'OPML_INVALID');
});
