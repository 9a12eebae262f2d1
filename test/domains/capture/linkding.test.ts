// The linkding pull against a fake linkding on loopback shaped like its REST API: GET /api/bookmarks/ with
// `Authorization: Token ...`, modified_since, and pages of {count, next, previous, results} linked by absolute URLs.
import t from 'tap';
import { loadConfig } from '../../../config/index.ts';
import { linkdingCron, syncLinkding } from '../../../domains/capture/linkding.ts';
import { runDueItems } from '../../../worker/cron.ts';
import { testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const token = 'linkding-api-token-0123';

interface Bookmark {
  id: number;
  url: string;
  title: string;
  website_title: string | null;
  tag_names: string[];
  date_added: string;
  date_modified: string;
}

const bookmarks: Bookmark[] = [1, 2, 3].map((id) => ({
  id,
  url: `https://example.org/bookmark-${id}`,
  title: id === 2 ? '' : `Bookmark ${id}`,
  website_title: id === 2 ? 'Site title 2' : null,
  tag_names: [`tag${id}`],
  date_added: `2026-01-0${id}T10:00:00.000000Z`,
  date_modified: `2026-01-0${id}T10:00:00.000000Z`,
}));

const linkding = await startUpstream(t, (request, response) => {
  const url = new URL(request.url ?? '/', 'http://x');
  if (request.headers.authorization !== `Token ${token}`) {
    response.writeHead(401, { 'content-type': 'application/json' });
    return response.end('{"detail":"Invalid token."}');
  }
  if (url.pathname !== '/api/bookmarks/') {
    response.writeHead(404);
    return response.end();
  }
  const since = url.searchParams.get('modified_since');
  const matching = bookmarks.filter((b) => since === null || new Date(b.date_modified) >= new Date(since));
  const limit = Number(url.searchParams.get('limit') ?? 100);
  // A small page size on the server's side, so the pull must follow `next`.
  const size = Math.min(limit, 2);
  const offset = Number(url.searchParams.get('offset') ?? 0);
  const page = matching.slice(offset, offset + size);
  const link = (at: number) => {
    const next = new URL(`${linkding.url}/api/bookmarks/`);
    for (const [k, v] of url.searchParams) next.searchParams.set(k, v);
    next.searchParams.set('offset', String(at));
    return next.href;
  };
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      count: matching.length,
      next: offset + size < matching.length ? link(offset + size) : null,
      previous: offset > 0 ? link(Math.max(0, offset - size)) : null,
      results: page,
    }),
  );
});

t.test('LINKDING_* configure the pull; one without the other is refused', async (t) => {
  t.equal(loadConfig({}).capture.linkding, null);
  t.throws(() => loadConfig({ LINKDING_URL: linkding.url }), {
    name: 'ConfigError',
    message: /^LINKDING_TOKEN /,
  });
  t.throws(() => loadConfig({ LINKDING_TOKEN: token }), { name: 'ConfigError', message: /^LINKDING_URL / });
  t.throws(
    () => loadConfig({ LINKDING_URL: linkding.url, LINKDING_TOKEN: token, LINKDING_SCHEDULE: 'often' }),
    { name: 'ConfigError', message: /^LINKDING_SCHEDULE / },
  );
  t.match(loadConfig({ LINKDING_URL: linkding.url, LINKDING_TOKEN: token }).capture.linkding, {
    token,
    schedule: '*/15 * * * *',
  });
  // A syntactically plausible expression the cron parser refuses is refused at start too.
  t.throws(
    () =>
      loadConfig({ LINKDING_URL: linkding.url, LINKDING_TOKEN: token, LINKDING_SCHEDULE: '*/15 * * 13 *' }),
    { name: 'ConfigError', message: /^LINKDING_SCHEDULE / },
  );
  // Like the other schedules, "off" leaves the pull to be started by hand: no recurring item.
  const off = loadConfig({ LINKDING_URL: linkding.url, LINKDING_TOKEN: token, LINKDING_SCHEDULE: 'off' });
  t.match(off.capture.linkding, { token, schedule: null });
  const offDeps = { sql: undefined as never, config: off };
  const offSchedules = await Promise.all(
    linkdingCron(offDeps).map((item) =>
      typeof item.schedule === 'string' ? item.schedule : item.schedule(offDeps),
    ),
  );
  t.same(offSchedules, [null], 'the item never falls due');
});

t.test(
  'new and changed bookmarks are captured once, across pages, from where the last run stopped',
  async (t) => {
    const ta = await testApp(t, { env: { LINKDING_URL: linkding.url, LINKDING_TOKEN: token } });
    const config = ta.config.capture.linkding;
    if (!config) throw new Error('linkding not configured');
    const deps = { sql: ta.sql, config: ta.config };
    const warnings: string[] = [];
    const log = { warn: (message: string) => warnings.push(message) };

    const items = linkdingCron(deps);
    const schedules = await Promise.all(
      items.map((item) => (typeof item.schedule === 'string' ? item.schedule : item.schedule(deps))),
    );
    t.same(
      items.map((item, i) => [item.id, item.task.name, schedules[i]]),
      [['linkding.sync', 'linkding.sync', '*/15 * * * *']],
    );
    const due = await runDueItems(deps, items, new Date(2026, 0, 5, 9, 30), {
      error: () => {},
      info: () => {},
    });
    t.same(due, ['linkding.sync'], 'the recurring job is queued when its schedule is due');
    const notDue = await runDueItems(deps, items, new Date(2026, 0, 5, 9, 31), {
      error: () => {},
      info: () => {},
    });
    t.same(notDue, []);

    const first = await syncLinkding(deps, config, log);
    t.same(first, { read: 3, captured: 3, duplicates: 0, skipped: 0 });
    const seen = linkding.requests.filter((r) => r.url.startsWith('/api/bookmarks/'));
    t.equal(seen.length, 2, 'both pages were read');
    t.notMatch(seen[0].url, /modified_since/, 'the first run reads everything');
    const captures = await ta.sql<{ url: string; title: string | null; idempotency_key: string }[]>`
    select url, title, idempotency_key from captures order by url`;
    t.same(
      captures.map((c) => [c.url, c.title]),
      [
        ['https://example.org/bookmark-1', 'Bookmark 1'],
        ['https://example.org/bookmark-2', 'Site title 2'],
        ['https://example.org/bookmark-3', 'Bookmark 3'],
      ],
    );
    const [job] = await ta.sql`select payload from graphile_worker._private_jobs where task_id =
    (select id from graphile_worker._private_tasks where identifier = 'ingest.url') order by id limit 1`;
    t.match(job.payload, { tags: ['tag1'] });

    const again = await syncLinkding(deps, config, log);
    t.match(again, { captured: 0 }, 'nothing new: nothing captured');
    const last = linkding.requests.at(-1);
    t.match(
      last?.url,
      /modified_since=2026-01-03T10%3A00%3A00\.000Z/,
      'the next run asks from the cursor on',
    );

    bookmarks[2] = {
      ...bookmarks[2],
      url: 'https://example.org/moved',
      date_modified: '2026-01-04T08:00:00Z',
    };
    const changed = await syncLinkding(deps, config, log);
    t.match(changed, { read: 1, captured: 1 }, 'a changed bookmark is captured again');
    const [{ count }] = await ta.sql`select count(*)::int from captures`;
    t.equal(count, 4);

    bookmarks.push({
      ...bookmarks[0],
      id: 9,
      url: 'ftp://example.org/x',
      date_modified: '2026-01-05T08:00:00Z',
    });
    const refused = await syncLinkding(deps, config, log);
    t.match(refused, { skipped: 1, captured: 0 }, 'a URL the guard refuses is skipped, not fatal');
    t.match(warnings.at(-1), /bookmark 9 not captured: URL refused/);

    const wrongToken = { ...config, token: 'wrong' };
    await t.rejects(syncLinkding(deps, wrongToken, log), /linkding answered HTTP 401/);
  },
);
