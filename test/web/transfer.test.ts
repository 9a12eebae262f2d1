// Settings › Data in a real browser: a space exported as a zip of Markdown (the download holds its pages), then a
// bookmark file picked for import: the preview shows the counts and writes nothing, Import writes them.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { readZip } from '../../lib/zip.ts';
import { ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const hub = await listeningHub(t);
const { page } = await openBrowser(t);

const created = await hub.asOwner({ method: 'POST', url: '/api/spaces', payload: { name: 'Garden' } });
const space = created.json();
await hub.asOwner({
  method: 'POST',
  url: '/api/pages',
  payload: { space_id: space.id, title: 'Tomatoes', body: 'Water at [[Dawn]].' },
});
const bookmarks = new URL('../domains/transfer/fixtures/firefox.bookmarks', import.meta.url);

t.test('sign in and open Settings', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await visitScreen(page, hub.origin, '/settings', 'Settings');
});

t.test('a space is exported as a zip of Markdown', async (t) => {
  const panel = page.getByRole('region', { name: 'Export and import' });
  await panel.getByLabel('Space').selectOption({ label: 'Garden' });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    panel.getByRole('link', { name: 'Export space (Markdown zip)' }).click(),
  ]);
  t.equal(download.suggestedFilename(), 'Garden.zip');
  const bytes = await readFile((await download.path()) ?? '');
  const files = await readZip(bytes, {
    maxEntries: 100,
    maxTotalBytes: 1e6,
    maxEntryBytes: 1e6,
    maxRatio: 1000,
  });
  t.same(
    files.map((file) => file.path),
    ['Tomatoes.md'],
  );
  t.match(files[0].bytes.toString(), /title: Tomatoes[\s\S]*\n---\n\nWater at \[\[Dawn\]\]\.$/);
});

t.test('a bookmark file: the preview counts and writes nothing, then Import writes', async (t) => {
  const panel = page.getByRole('region', { name: 'Export and import' });
  await panel.getByLabel('File to import').setInputFiles({
    name: 'bookmarks.html',
    mimeType: 'text/html',
    buffer: await readFile(bookmarks),
  });
  t.ok(
    await panel.getByRole('button', { name: 'Import', exact: true }).isDisabled(),
    'no import before a preview',
  );
  await panel.getByRole('button', { name: 'Preview' }).click();
  const preview = panel.getByRole('region', { name: 'Import preview' });
  await preview.getByText('Preview: nothing was written yet.').waitFor();
  t.match(await preview.textContent(), /Would create 7, would update 0, unchanged 0, skipped 2/);
  t.match(
    await preview.getByRole('list', { name: 'Skipped' }).textContent(),
    /Most Visited — not an http\(s\) link/,
  );
  const [before] = await hub.sql`select count(*)::int as n from refs where space_id = ${space.id}`;
  t.equal(before.n, 0);
  await screenshot(page, 'settings-transfer');
  await checkAccessible(t, page, 'settings-transfer');

  await panel.getByRole('button', { name: 'Import', exact: true }).click();
  await preview.getByText('Imported.').waitFor();
  t.match(await preview.textContent(), /Created 7, updated 0/);
  const [after] = await hub.sql`select count(*)::int as n from refs where space_id = ${space.id}`;
  t.equal(after.n, 7);
});
