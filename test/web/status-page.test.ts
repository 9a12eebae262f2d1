// Status pages and push services in a real browser: the public page at /status/:slug opens without signing in (no
// sign-in form, no 401), at desktop and phone sizes, showing the listed services and their 90-day bars and nothing
// of how any service of the hub is checked; a page not public says so. The owner adds a push service and gets its
// heartbeat URL with examples (the URL works), and makes a status page public from Settings.
import t from 'tap';
import { ownerToken } from '../helpers/app.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const web = await startUpstream(t, (_request, response) => response.writeHead(200).end('fine'));
const hub = await listeningHub(t);

async function create(url: string, payload: Record<string, unknown>) {
  const response = await hub.asOwner({ method: 'POST', url, payload });
  if (response.statusCode !== 201) throw new Error(response.body);
  return response.json();
}

const nas = await create('/api/health/services', {
  name: 'NAS',
  kind: 'http',
  url: `http://hubuser:pa55word@127.0.0.1:${web.port}/nas-secret-path`,
});
const backup = await create('/api/health/services', { name: 'Backup', kind: 'push', interval_s: 3600 });
const hidden = await create('/api/health/services', {
  name: 'Hidden lab box',
  kind: 'tcp',
  host: '127.0.0.3',
  port: 8443,
});
await hub.anon({
  method: 'GET',
  url: `/api/push/${backup.push_token}?status=down&msg=secret-backup-message`,
});
await hub.sql`update monitored_services set state = 'up' where id = ${nas.id}`;
await hub.sql`
  insert into health_results (service_id, checked_at, ok, state)
  values (${nas.id}, now(), true, 'up'), (${nas.id}, now() - interval '2 days', false, 'down')`;
await create('/api/status-pages', {
  slug: 'family',
  title: 'Home services',
  description: 'Is it down for everyone?',
  services: [nas.id, backup.id],
  public: true,
});
await create('/api/status-pages', { slug: 'draft', title: 'Draft', services: [nas.id] });

const secrets = [
  `127.0.0.1:${web.port}`,
  'nas-secret-path',
  'hubuser',
  'pa55word',
  backup.push_token,
  'secret-backup-message',
  'Hidden lab box',
  '127.0.0.3',
  '8443',
  hidden.id,
  'push://',
  'tcp://',
];

t.test('the public page opens without signing in and shows only what is listed', async (t) => {
  const { page, problems } = await openBrowser(t);
  const bodies: string[] = [];
  page.on('response', async (response) => {
    if (response.url().includes('/api/')) bodies.push(await response.text().catch(() => ''));
  });
  await page.goto(`${hub.origin}/status/family`);
  await page.getByRole('heading', { level: 1, name: 'Home services' }).waitFor();
  t.equal(await page.getByLabel('Owner token').count(), 0, 'no sign-in form');
  t.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'no shell');
  t.equal(await page.getByRole('status').first().textContent(), 'Some systems are down');
  const names = await page.locator('.status-services strong').allTextContents();
  t.same(names, ['NAS', 'Backup']);
  t.same(await page.locator('.status-state').allTextContents(), ['Operational', 'Down']);
  t.equal(await page.locator('.status-services li').first().locator('.status-day').count(), 90);
  t.equal(
    await page.locator('.status-services li').first().locator('.status-day.bad').count(),
    1,
    'the bad day',
  );
  t.equal(await page.locator('.status-services li').first().locator('.status-day.good').count(), 1, 'today');
  await screenshot(page, 'status-page');
  await checkAccessible(t, page, 'status page');

  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
  t.notOk(overflow, 'nothing wider than a phone');
  await screenshot(page, 'status-page-phone');
  await checkAccessible(t, page, 'status page on a phone');

  const html = await page.content();
  for (const secret of secrets) {
    t.notOk(html.includes(secret), `the page does not show ${secret}`);
    t.notOk(
      bodies.some((body) => body.includes(secret)),
      `no answer the page read carries ${secret}`,
    );
  }
  t.same(problems, [], 'no failed request (no 401), no console error');
});

t.test('a page not public is not found for anyone but the owner', async (t) => {
  const { page, problems } = await openBrowser(t, {
    expected: [/HTTP 404: GET .*\/api\/status\/draft/, /console: Failed to load resource: .* 404/],
  });
  await page.goto(`${hub.origin}/status/draft`);
  await page.getByRole('heading', { level: 1, name: 'No such status page' }).waitFor();
  t.equal(await page.getByText('NAS').count(), 0);
  t.same(problems, []);
});

t.test('the owner adds a push service, copies its URL, and publishes a status page', async (t) => {
  const { page, problems } = await openBrowser(t);
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await visitScreen(page, hub.origin, '/services', 'Services');

  await page.getByRole('button', { name: 'Add service' }).click();
  await page.getByLabel('Name').fill('Nightly rsync');
  await page.getByLabel('Kind').selectOption('push');
  await page.getByLabel('Expected every (seconds)').fill('86400');
  await page.getByRole('button', { name: 'Save' }).click();
  const shown = page.getByRole('alert', { name: 'Heartbeat URL of Nightly rsync' });
  await shown.waitFor();
  const url = (await shown.locator('.push-url').textContent()) ?? '';
  t.match(url, new RegExp(`^${hub.origin}/api/push/[A-Za-z0-9_-]{43}$`));
  const examples = await shown.locator('.push-example').allTextContents();
  t.match(examples[0], /^curl .*\/api\/push\/.*status=up/);
  t.match(examples[2], /\/api\/ping\/.*\/start/);
  await screenshot(page, 'services-push-url');
  await checkAccessible(t, page, 'push URL');
  const sent = await page.request.get(url);
  t.same(await sent.json(), { ok: true }, 'the URL shown takes a heartbeat');
  const [row] = await hub.sql`select state from monitored_services where name = 'Nightly rsync'`;
  t.equal(row.state, 'up');
  await shown.getByRole('button', { name: 'Done' }).click();

  await visitScreen(page, hub.origin, '/settings', 'Settings');
  const section = page.getByRole('region', { name: 'Status pages' });
  await section.getByLabel('Slug').fill('jobs');
  await section.getByLabel('Title').fill('Jobs');
  await section.getByRole('button', { name: 'Add status page' }).click();
  const jobs = section.locator('fieldset', { hasText: '/status/jobs' });
  await jobs.waitFor();
  await jobs.getByLabel('Nightly rsync').check();
  await jobs.getByLabel('Public').check();
  await t.resolves(
    (async () => {
      for (let i = 0; i < 50; i++) {
        const [page] = await hub.sql`select public from status_pages where slug = 'jobs'`;
        if (page?.public) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error('the page never became public');
    })(),
  );
  const publicPage = await hub.anon({ method: 'GET', url: '/api/status/jobs' });
  t.match(publicPage.json(), { public: true, services: [{ name: 'Nightly rsync', state: 'up' }] });
  await screenshot(page, 'settings-status-pages');
  await checkAccessible(t, page, 'status pages in Settings');
  t.same(problems, []);
});
