// Status pages: the owner's CRUD; the public JSON at /api/status/:slug and the badges reachable without credentials,
// showing the listed services' name, state and uptime and nothing else (every address, URL, host and token of the
// hub's services is searched for in them); a page not public, or unknown, is 404 to anyone but the owner.
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const web = await startUpstream(t, (_request, response) => response.writeHead(200).end('fine'));
const ta = await testApp(t);
const deps = { sql: ta.sql, config: ta.config };

async function create(url: string, payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode !== 201) throw new Error(`POST ${url}: ${response.body}`);
  return response.json();
}

const nas = await create('/api/health/services', {
  name: 'NAS',
  kind: 'http',
  url: `http://hubuser:pa55word@127.0.0.1:${web.port}/nas-secret-path?key=q1`,
  notes: 'rack 2, private note',
});
const router = await create('/api/health/services', {
  name: 'Router',
  kind: 'tcp',
  host: '127.0.0.1',
  port: 9,
});
const backup = await create('/api/health/services', { name: 'Backup', kind: 'push', interval_s: 3600 });
const hidden = await create('/api/health/services', {
  name: 'Hidden lab box',
  kind: 'http',
  url: 'http://127.0.0.2:8123/unlisted',
});
await checkServices(deps, { ids: [nas.id, router.id] });
await ta.anon({ method: 'GET', url: `/api/push/${backup.push_token}?msg=secret-backup-message` });

/** Everything about the hub's services a public answer must not carry. */
const secrets = [
  `127.0.0.1:${web.port}`,
  String(web.port),
  'nas-secret-path',
  'key=q1',
  'hubuser',
  'pa55word',
  'rack 2',
  'tcp://',
  'http://',
  'push://',
  backup.push_token,
  'secret-backup-message',
  'connection refused',
  'HTTP 200',
  'Hidden lab box',
  hidden.id,
  '127.0.0.2',
  'unlisted',
];
function assertNoLeak(t: { notOk(value: unknown, message: string): void }, body: string, where: string) {
  for (const secret of secrets) t.notOk(body.includes(secret), `${where} does not show ${secret}`);
}

t.test('the owner makes, reads, changes and deletes status pages', async (t) => {
  const page = await create('/api/status-pages', {
    slug: 'family',
    title: 'Home services',
    description: 'Is the internet down again?',
    services: [router.id, nas.id],
  });
  t.match(page, { slug: 'family', title: 'Home services', public: false, services: [router.id, nas.id] });
  const taken = await ta.asOwner({
    method: 'POST',
    url: '/api/status-pages',
    payload: { slug: 'family', title: 'x' },
  });
  t.match(taken.json(), { statusCode: 409, code: 'STATUS_PAGE_SLUG_TAKEN' });
  const badSlug = await ta.asOwner({
    method: 'POST',
    url: '/api/status-pages',
    payload: { slug: 'Bad Slug', title: 'x' },
  });
  t.equal(badSlug.statusCode, 400);
  const unknown = await ta.asOwner({
    method: 'POST',
    url: '/api/status-pages',
    payload: { slug: 'other', title: 'x', services: ['00000000-0000-4000-8000-000000000000'] },
  });
  t.match(unknown.json(), { statusCode: 404, code: 'SERVICE_NOT_FOUND' });
  t.equal(
    (await ta.asOwner({ method: 'GET', url: '/api/status-pages/other' })).statusCode,
    404,
    'nothing half-made',
  );

  const patched = await ta.asOwner({
    method: 'PATCH',
    url: '/api/status-pages/family',
    payload: { public: true, services: [nas.id, router.id, backup.id] },
  });
  t.match(patched.json(), { public: true, services: [nas.id, router.id, backup.id] });
  const list = await ta.asOwner({ method: 'GET', url: '/api/status-pages' });
  t.match(list.json(), { total: 1, items: [{ slug: 'family' }] });

  const reader = await createAgent(ta, { tier: 'owner' });
  const agent = await ta.asAgent(reader.token, { method: 'GET', url: '/api/status-pages' });
  t.equal(agent.statusCode, 403, 'owner only');

  await create('/api/status-pages', { slug: 'scratch', title: 'Scratch' });
  t.equal((await ta.asOwner({ method: 'DELETE', url: '/api/status-pages/scratch' })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'DELETE', url: '/api/status-pages/scratch' })).statusCode, 404);
});

t.test('a public page: name, state and uptime of each listed service, without credentials', async (t) => {
  const response = await ta.anon({ method: 'GET', url: '/api/status/family' });
  t.equal(response.statusCode, 200);
  const page = response.json();
  t.match(page, {
    slug: 'family',
    title: 'Home services',
    description: 'Is the internet down again?',
    public: true,
    state: 'down',
    services: [
      { id: nas.id, name: 'NAS', state: 'up', uptime_24h: 100, uptime_30d: 100 },
      { id: router.id, name: 'Router', state: 'down', uptime_24h: 0 },
      { id: backup.id, name: 'Backup', state: 'up', uptime_24h: 100 },
    ],
  });
  t.same(Object.keys(page.services[0]).sort(), ['days', 'id', 'name', 'state', 'uptime_24h', 'uptime_30d']);
  const days = page.services[0].days;
  t.equal(days.length, 90, 'a bar of 90 days');
  t.same(days.at(-1), { date: new Date().toISOString().slice(0, 10), uptime: 100 }, 'today last');
  t.equal(days[0].uptime, null, 'days without checks are null');
  assertNoLeak(t, response.body, 'the JSON');

  // Older results count on their own days.
  await ta.sql`
    insert into health_results (service_id, checked_at, ok, state)
    values (${nas.id}, now() - interval '3 days', false, 'down'), (${nas.id}, now() - interval '3 days', true, 'up')`;
  const later = (await ta.anon({ method: 'GET', url: '/api/status/family' })).json();
  const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
  t.match(
    later.services[0].days.find((day: { date: string }) => day.date === threeDaysAgo),
    { uptime: 50 },
  );
  t.equal(later.services[0].uptime_30d, 66.67, 'one check today and two then');
});

t.test('a page not public, or unknown, is 404 to anyone but the owner', async (t) => {
  await create('/api/status-pages', { slug: 'draft', title: 'Draft', services: [nas.id] });
  const reader = await createAgent(ta, { tier: 'owner' });
  for (const slug of ['draft', 'nowhere']) {
    const anonymous = await ta.anon({ method: 'GET', url: `/api/status/${slug}` });
    t.match(anonymous.json(), { statusCode: 404, code: 'STATUS_PAGE_NOT_FOUND' }, `${slug}: anonymous`);
    const agent = await ta.asAgent(reader.token, { method: 'GET', url: `/api/status/${slug}` });
    t.equal(agent.statusCode, 404, `${slug}: an agent`);
  }
  const preview = await ta.asOwner({ method: 'GET', url: '/api/status/draft' });
  t.equal(preview.statusCode, 200, 'the owner previews it');
  t.match(preview.json(), { public: false, services: [{ name: 'NAS' }] });
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/status/nowhere' })).statusCode, 404);
});

t.test('badges: only for services on a public page, cached a minute, text escaped', async (t) => {
  const status = await ta.anon({ method: 'GET', url: `/api/badge/${nas.id}/status.svg` });
  t.equal(status.statusCode, 200);
  t.match(status.headers['content-type'], /^image\/svg\+xml/);
  t.match(status.headers['cache-control'], /max-age=60/);
  t.match(status.body, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  t.match(status.body, />NAS<\/text>/);
  t.match(status.body, />up<\/text>/);
  t.match(status.body, /#4c1/, 'green when up');
  const down = await ta.anon({ method: 'GET', url: `/api/badge/${router.id}/status.svg` });
  t.match(down.body, />down<\/text>/);
  t.match(down.body, /#e05d44/, 'red when down');

  const uptime = await ta.anon({ method: 'GET', url: `/api/badge/${nas.id}/uptime.svg?window=30d` });
  t.match(uptime.body, />uptime 30d<\/text>/);
  t.match(uptime.body, />66.67%<\/text>/);
  t.match(uptime.body, /#e05d44/, 'red under 90%');
  const day = await ta.anon({ method: 'GET', url: `/api/badge/${nas.id}/uptime.svg` });
  t.match(day.body, />uptime 24h<\/text>/, '24 hours by default');
  t.equal(
    (await ta.anon({ method: 'GET', url: `/api/badge/${nas.id}/uptime.svg?window=1y` })).statusCode,
    400,
  );
  for (const body of [status.body, down.body, uptime.body])
    assertNoLeak(t, body.replace('http://www.w3.org', ''), 'a badge');

  for (const id of [hidden.id, '00000000-0000-4000-8000-000000000000']) {
    const refused = await ta.anon({ method: 'GET', url: `/api/badge/${id}/status.svg` });
    t.match(refused.json(), { statusCode: 404, code: 'BADGE_NOT_FOUND' });
  }
  const draftOnly = await create('/api/health/services', { name: 'Draft only', kind: 'push' });
  await ta.asOwner({
    method: 'PATCH',
    url: '/api/status-pages/draft',
    payload: { services: [draftOnly.id] },
  });
  const onDraft = await ta.anon({ method: 'GET', url: `/api/badge/${draftOnly.id}/uptime.svg` });
  t.equal(onDraft.statusCode, 404, 'a page not public gives no badge');

  const odd = await create('/api/health/services', { name: '<script>&"Fancy"', kind: 'push' });
  await ta.asOwner({
    method: 'PATCH',
    url: '/api/status-pages/family',
    payload: { services: [nas.id, odd.id] },
  });
  const escaped = await ta.anon({ method: 'GET', url: `/api/badge/${odd.id}/status.svg` });
  t.notMatch(escaped.body, /<script>/);
  t.match(escaped.body, /&#60;script&#62;&#38;&#34;Fancy&#34;/);
});
