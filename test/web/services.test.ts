// The Services screen in a real browser with the newer kinds: rows show a certificate's days left and a DNS answer,
// degraded and warning in amber; the add form offers every kind with its own fields; a push service's history shows
// its uptime, its checks and the messages its log pings sent.
import t from 'tap';
import { ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const hub = await listeningHub(t);
const { page, problems } = await openBrowser(t);

async function add(payload: Record<string, unknown>): Promise<{ id: string; push_token: string | null }> {
  const response = await hub.asOwner({ method: 'POST', url: '/api/health/services', payload });
  if (response.statusCode !== 201) throw new Error(response.body);
  return response.json();
}

const certificate = await add({
  name: 'Router cert',
  kind: 'tls',
  host: 'router.lan',
  category: 'Edge',
  warn_days: 21,
});
const resolver = await add({
  name: 'Pi-hole',
  kind: 'dns',
  host: '192.168.1.2',
  dns_name: 'nas.lan',
  category: 'Edge',
});
const slow = await add({
  name: 'Wiki',
  kind: 'http',
  url: 'http://wiki.lan/',
  slow_ms: 500,
  category: 'Edge',
});
// What checks of those (tested against real servers in test/domains/health/) leave behind.
await hub.sql`
  update monitored_services set state = 'warning', message = 'certificate expires in 9 days (2026-12-05)',
    details = ${hub.sql.json({ certificate: { subject: 'CN=router.lan', issuer: 'CN=Home CA', not_after: '2026-12-05T00:00:00.000Z', days_left: 9, verified: true, error: null } })}
  where id = ${certificate.id}`;
await hub.sql`
  update monitored_services set state = 'up', latency_ms = 3,
    details = ${hub.sql.json({ rcode: 'NOERROR', answers: ['192.168.1.10'] })}
  where id = ${resolver.id}`;
await hub.sql`update monitored_services set state = 'degraded', latency_ms = 812 where id = ${slow.id}`;

// A push service that reported a run and sent a log message.
const job = await add({
  name: 'Nightly rsync',
  kind: 'push',
  interval_s: 86_400,
  grace_s: 3600,
  category: 'Jobs',
});
for (const [suffix, body] of [
  ['', undefined],
  ['/log', 'disk at 91% after the sync'],
]) {
  const sent = await fetch(`${hub.origin}/api/ping/${job.push_token}${suffix}`, { method: 'POST', body });
  if (sent.status !== 200) throw new Error(`the ping${suffix} was refused: ${sent.status}`);
}

t.test('sign in', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

t.test('rows show days left, the DNS answer, and degraded and warning in amber', async (t) => {
  await visitScreen(page, hub.origin, '/services', 'Services');
  const edge = page.getByRole('region', { name: 'Edge' });
  const row = (name: string) => edge.locator('li', { hasText: name });
  await row('Router cert').getByText('certificate: 9 days left').waitFor();
  await row('Pi-hole').getByText('192.168.1.10').waitFor();
  t.equal(await row('Router cert').locator('.badge').textContent(), 'warning');
  t.match(await row('Router cert').locator('.badge').getAttribute('class'), /\bwarning\b/);
  t.equal(await row('Wiki').locator('.badge').textContent(), 'degraded');
  t.match(await row('Wiki').locator('.badge').getAttribute('class'), /\bwarning\b/, 'amber');
  t.equal(
    await edge.locator('.panel-head .badge').textContent(),
    '3/3 up',
    'degraded and warning count as up',
  );
  await screenshot(page, 'services-kinds');
  await checkAccessible(t, page, 'services with kinds');
});

t.test('the add form offers every kind with its fields', async (t) => {
  await page.getByRole('button', { name: 'Add service' }).click();
  const dialog = page.getByRole('dialog');
  const kind = dialog.getByLabel('Kind');
  t.same(await kind.locator('option').allTextContents(), [
    'HTTP(S)',
    'TCP port',
    'Ping',
    'DNS',
    'TLS certificate',
    'Heartbeats it sends (push: cron jobs, backups)',
  ]);
  await dialog.getByLabel('JSON Pointer').waitFor();
  await kind.selectOption('ping');
  await dialog.getByLabel('Packets').waitFor();
  t.equal(await dialog.getByLabel('URL').count(), 0, 'no URL for a ping');
  await kind.selectOption('tls');
  await dialog.getByLabel('Warn days before expiry').waitFor();
  await kind.selectOption('dns');
  await dialog.getByLabel('DNS server').waitFor();
  await dialog.getByLabel('Name to look up').waitFor();
  t.same(await dialog.getByLabel('Record type').locator('option').allTextContents(), [
    'A',
    'AAAA',
    'CNAME',
    'MX',
    'TXT',
    'NS',
    'PTR',
    'SRV',
  ]);
  await dialog.getByLabel('Slow above (ms)').waitFor();
  await checkAccessible(t, page, 'service form');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  t.same(problems, [], 'no console errors');
});

t.test("a push service's history: uptime, its checks and its log messages", async (t) => {
  await visitScreen(page, hub.origin, '/services', 'Services');
  await page.getByRole('button', { name: 'History of Nightly rsync' }).click();
  const dialog = page.getByRole('dialog', { name: 'History of Nightly rsync' });
  await dialog.getByRole('region', { name: 'Latest checks' }).locator('.badge', { hasText: 'up' }).waitFor();
  t.match(await dialog.textContent(), /Uptime: 100% over 24 hours/);
  t.match(
    await dialog.getByRole('region', { name: 'Log' }).textContent(),
    /disk at 91% after the sync/,
    'the log message is listed',
  );
  await screenshot(page, 'services-history');
  await checkAccessible(t, page, 'service history');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
  t.same(problems, []);
});
