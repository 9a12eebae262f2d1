// Settings › Data › Backups in a real browser: Back up now runs the hub.backup action on the worker, the new run
// shows in the list with its size, and its archive downloads as a zip holding the manifest of the hub's tables. The
// dashboard's backups card shows the hub's own backups red and stale before (on a hub set up ten days ago whose
// every-minute schedule never ran), fresh with the run after.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { readZip } from '../../lib/zip.ts';
import { ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

t.setTimeout(180_000);
const hub = await listeningHub(t, { worker: true });
const { page, problems } = await openBrowser(t);

await hub.sql`update schema_migrations set applied_at = now() - interval '10 days'`;
await hub.asOwner({
  method: 'PUT',
  url: '/api/settings/hub_backup',
  payload: { value: { enabled: true, schedule: '* * * * *', keep_daily: 7, keep_weekly: 4 } },
});
const layout = await hub.asOwner({
  method: 'PUT',
  url: '/api/dashboard/layout',
  payload: { mode: 'snap', cards: [{ id: 'backups', type: 'backups', size: 4, config: {} }] },
});
if (layout.statusCode !== 200) throw new Error(`the layout was refused: ${layout.body}`);
const hubCard = () =>
  page
    .getByRole('region', { name: 'Backups', exact: true })
    .getByRole('region', { name: "The hub's own backups" });

t.test('sign in: the backups card shows the hub has no backup, in red', async (t) => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  const badge = hubCard().locator('.badge', { hasText: 'stale' });
  await badge.waitFor();
  t.match(await badge.getAttribute('class'), /danger/);
  t.match(await hubCard().textContent(), /no successful run since the run expected at.*No backup yet/);
  t.match(
    await hubCard().textContent(),
    /scheduled every minute \(\* \* \* \* \*\)/,
    'the schedule in words',
  );
  // No backup script has reported a run: the card says how to connect one, not that its backups are stale.
  const card = page.getByRole('region', { name: 'Backups', exact: true });
  t.match(await card.textContent(), /not reporting\s*No backup job has reported a run yet/);
  t.equal(await card.locator('.badge.warning').count(), 0, 'no warning badge for backups nobody reports');
  await visitScreen(page, hub.origin, '/settings', 'Settings');
});

t.test('Back up now: the run is listed, its archive downloads with its manifest', async (t) => {
  const panel = page.getByRole('region', { name: 'Backups' });
  await panel.getByText('No backup of the hub yet.').waitFor();
  await panel.getByRole('button', { name: 'Back up now' }).click();
  const row = panel.getByRole('row').filter({ hasText: 'succeeded' });
  await row.waitFor({ timeout: 60_000 });
  const [run] = await hub.sql`select file_name, size_bytes from hub_backup_runs`;
  t.match(await row.textContent(), /succeeded.*(KB|MB)/);
  await screenshot(page, 'settings-backups');
  await checkAccessible(t, page, 'settings-backups');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    row.getByRole('link', { name: /Download/ }).click(),
  ]);
  t.equal(download.suggestedFilename(), run.file_name);
  const bytes = await readFile((await download.path()) ?? '');
  t.equal(bytes.length, Number(run.size_bytes), 'the whole archive arrived');
  const files = await readZip(bytes, {
    maxEntries: 10_000,
    maxTotalBytes: 1e9,
    maxEntryBytes: 1e9,
    maxRatio: 1e6,
  });
  const manifest = files.find((file) => file.path === 'manifest.json');
  t.ok(manifest, 'the archive holds its manifest');
  const parsed = JSON.parse(manifest?.bytes.toString() ?? '{}');
  t.equal(parsed.format, 'ops-hub-backup');
  t.ok(
    parsed.tables.some((table: { name: string }) => table.name === 'pages'),
    'the manifest lists the tables',
  );
});

t.test('the backups card shows the run, and the hub fresh', async (t) => {
  await visitScreen(page, hub.origin, '/', 'Dashboard');
  await hubCard().locator('.badge', { hasText: 'fresh' }).waitFor();
  t.match(await hubCard().getByRole('listitem').textContent(), /succeeded.*KB/);
  await screenshot(page, 'dashboard-backups-card');
  await checkAccessible(t, page, 'dashboard-backups-card');
  t.same(problems, [], 'no console errors or failed requests');
});
