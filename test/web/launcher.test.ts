// The launcher in a real browser: the apps card's tiles by group with their status dots (latency on hover), a tile
// opening its link in a new tab, quick launch (typing with no field focused filters, Enter opens the first, arrows
// move, Escape clears), board tabs, edit mode (an app added with an mdi icon from the picker, edited, moved to another
// group and within it, deleted), and the Homepage import dialog in Settings (dry run, then import).
import t from 'tap';
import { ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot } from './browser.ts';

const hub = await listeningHub(t);
const { page, context, problems } = await openBrowser(t);

async function add(payload: Record<string, unknown>): Promise<{ id: string }> {
  const response = await hub.asOwner({ method: 'POST', url: '/api/apps', payload });
  if (response.statusCode !== 201) throw new Error(response.body);
  return response.json();
}

// The apps link to the hub's own liveness route, so a tab they open loads without leaving loopback.
const link = (name: string) => `${hub.origin}/api/healthz?app=${name}`;
const service = await hub.asOwner({
  method: 'POST',
  url: '/api/health/services',
  payload: { name: 'Jellyfin', kind: 'http', url: link('jellyfin') },
});
await hub.sql`update monitored_services set state = 'up', latency_ms = 23 where id = ${service.json().id}`;
await add({
  name: 'Jellyfin',
  href: link('jellyfin'),
  description: 'Movies',
  group: 'Media',
  icon: 'mdi:filmstrip',
  service_id: service.json().id,
});
await add({ name: 'Jellyseerr', href: link('jellyseerr'), group: 'Media' });
await add({ name: 'Proxmox', href: link('proxmox'), group: 'Infrastructure', icon: 'brand:proxmox' });
await hub.asOwner({
  method: 'PUT',
  url: '/api/dashboard/layout',
  payload: { mode: 'snap', cards: [{ id: 'tiles', type: 'apps', size: 12, h: 3 }] },
});

const links = await hub.asOwner({ method: 'POST', url: '/api/boards', payload: { name: 'Infra' } });
await hub.asOwner({
  method: 'PUT',
  url: `/api/boards/${links.json().id}/layout`,
  payload: {
    mode: 'snap',
    cards: [{ id: 'infra', type: 'apps', size: 6, config: { group: 'Infrastructure' } }],
  },
});

t.test('sign in to the dashboard', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

t.test('the apps card shows tiles by group with status dots', async (t) => {
  const tiles = page.locator('.app-tile');
  await tiles.first().waitFor();
  t.same(await tiles.evaluateAll((items) => items.map((item) => item.getAttribute('data-app'))), [
    'Jellyfin',
    'Jellyseerr',
    'Proxmox',
  ]);
  t.same(await page.locator('.app-group h3').allTextContents(), ['Media', 'Infrastructure']);
  const jellyfin = page.locator('.app-tile[data-app="Jellyfin"]');
  t.equal(await jellyfin.getAttribute('target'), '_blank');
  t.equal(await jellyfin.locator('.status-dot').getAttribute('data-status'), 'up');
  t.equal(await jellyfin.locator('.status-dot').getAttribute('title'), 'Jellyfin: up, 23 ms');
  t.equal(
    await page.locator('.app-tile[data-app="Proxmox"] .status-dot').getAttribute('data-status'),
    'unknown',
  );
  t.equal(await jellyfin.locator('img').getAttribute('src'), '/api/icons/mdi/filmstrip.svg');
  t.equal(await page.locator('.app-tile[data-app="Jellyseerr"] .app-initial').textContent(), 'J');
  await screenshot(page, 'launcher');
  await checkAccessible(t, page, 'launcher');
});

t.test('a tile opens its link in a new tab', async (t) => {
  const [tab] = await Promise.all([
    context.waitForEvent('page'),
    page.locator('.app-tile[data-app="Proxmox"]').click(),
  ]);
  await tab.waitForLoadState();
  t.equal(tab.url(), link('proxmox'));
  await tab.close();
});

t.test('quick launch: typing filters, arrows move, Enter opens, Escape clears', async (t) => {
  await page.locator('h1').click();
  await page.keyboard.type('jelly');
  await page.locator('.launch-query').waitFor();
  const shown = () =>
    page.locator('.app-tile').evaluateAll((items) => items.map((item) => item.getAttribute('data-app')));
  t.same(await shown(), ['Jellyfin', 'Jellyseerr']);
  await page.keyboard.press('ArrowRight');
  t.equal(await page.locator('.app-tile.selected').getAttribute('data-app'), 'Jellyseerr');
  const [tab] = await Promise.all([context.waitForEvent('page'), page.keyboard.press('Enter')]);
  await tab.waitForLoadState();
  t.equal(tab.url(), link('jellyseerr'));
  await tab.close();

  await page.keyboard.press('Escape');
  await page.locator('.launch-query').waitFor({ state: 'detached' });
  t.same(await shown(), ['Jellyfin', 'Jellyseerr', 'Proxmox']);
  await page.keyboard.type('prox');
  const [first] = await Promise.all([context.waitForEvent('page'), page.keyboard.press('Enter')]);
  await first.waitForLoadState();
  t.equal(first.url(), link('proxmox'), 'Enter opens the first tile');
  await first.close();
  await page.keyboard.press('Escape');

  // Typing in a field is never a launch.
  await page.getByRole('combobox', { name: 'Card to add' }).focus();
  await page.keyboard.type('x');
  t.equal(await page.locator('.launch-query').count(), 0);
});

t.test('board tabs switch the layout shown', async (t) => {
  const tabs = page.getByRole('tablist', { name: 'Boards' }).getByRole('tab');
  t.same(await tabs.allTextContents(), ['Home', 'Infra']);
  t.equal(await tabs.first().getAttribute('aria-selected'), 'true');
  await page.getByRole('tab', { name: 'Infra' }).click();
  await page.locator('.grid-stack-item[gs-id="infra"] .app-tile').first().waitFor();
  const shown = await page
    .locator('.app-tile')
    .evaluateAll((items) => items.map((item) => item.getAttribute('data-app')));
  t.same(shown, ['Proxmox'], "the Infra board's card shows its group only");
  await page.getByRole('tab', { name: 'Home' }).click();
  await page.locator('.grid-stack-item[gs-id="tiles"] .app-tile').nth(2).waitFor();
  t.equal(await page.locator('.app-tile').count(), 3);
  t.same(problems, []);
});

t.test('edit mode: add an app with a picked mdi icon, edit it, move it, delete it', async (t) => {
  const inGroup = (group: string) =>
    hub.sql`select name, icon, position from apps where group_name = ${group} order by position`;
  const tilesOf = (group: string) =>
    page
      .getByRole('region', { name: group })
      .locator('.app-tile')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-app')));
  await page.getByRole('button', { name: 'Edit apps' }).click();
  await page.getByRole('button', { name: 'Edit Jellyfin' }).waitFor();
  t.equal(await page.locator('a.app-tile').count(), 0, 'tiles are not links while editing');

  await page.getByRole('button', { name: 'Add app to Media' }).click();
  const adding = page.getByRole('dialog', { name: 'Add an app' });
  await adding.getByLabel('Name').fill('Sonarr');
  await adding.getByLabel('Link').fill(link('sonarr'));
  await adding.getByLabel('Description').fill('Series');
  await adding.getByRole('searchbox').fill('television-classic');
  await adding.locator('button[title="mdi:television-classic"]').click();
  await adding.getByText('mdi:television-classic', { exact: true }).waitFor();
  await adding.getByRole('button', { name: 'Save' }).click();
  await page.locator('.app-tile[data-app="Sonarr"]').waitFor();
  t.same(await tilesOf('Media'), ['Jellyfin', 'Jellyseerr', 'Sonarr']);
  t.equal(
    await page.locator('.app-tile[data-app="Sonarr"] img').getAttribute('src'),
    '/api/icons/mdi/television-classic.svg',
  );
  t.match((await inGroup('Media'))[2], { name: 'Sonarr', icon: 'mdi:television-classic', position: 2 });

  await page.getByRole('button', { name: 'Edit Sonarr' }).click();
  const editing = page.getByRole('dialog', { name: 'Edit Sonarr' });
  await editing.getByLabel('Name').fill('Sonarr TV');
  await editing.getByLabel('Group').fill('Infrastructure');
  await editing.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('region', { name: 'Infrastructure' }).locator('[data-app="Sonarr TV"]').waitFor();
  t.same(await tilesOf('Media'), ['Jellyfin', 'Jellyseerr'], 'moved out of its group');
  t.same(await tilesOf('Infrastructure'), ['Proxmox', 'Sonarr TV'], 'at the end of the other one');

  await page.getByRole('button', { name: 'Move Sonarr TV earlier' }).click();
  await page.locator('[aria-label="Infrastructure"] li:first-child [data-app="Sonarr TV"]').waitFor();
  t.same(
    (await inGroup('Infrastructure')).map((row) => `${row.position} ${row.name}`),
    ['0 Sonarr TV', '1 Proxmox'],
  );
  t.equal(await page.getByRole('button', { name: 'Move Sonarr TV earlier' }).isDisabled(), true);
  await checkAccessible(t, page, 'launcher edit mode');

  await page.getByRole('button', { name: 'Delete Sonarr TV' }).click();
  await page
    .getByRole('dialog', { name: 'Delete the app "Sonarr TV"?' })
    .getByRole('button', { name: 'Delete' })
    .click();
  await page.locator('.app-tile[data-app="Sonarr TV"]').waitFor({ state: 'detached' });
  t.same(await tilesOf('Infrastructure'), ['Proxmox']);
  t.equal((await hub.sql`select count(*)::int as n from apps where name like 'Sonarr%'`)[0].n, 0);

  await page.getByRole('button', { name: 'Done editing' }).click();
  await page.locator('a.app-tile[data-app="Proxmox"]').waitFor();
  t.same(problems, []);
});

t.test('Settings: the Homepage import dialog shows the dry run, then imports', async (t) => {
  await page.getByRole('link', { name: 'Settings', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  await page.getByRole('button', { name: 'Import from Homepage…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import from Homepage' });
  await dialog.waitFor();
  await dialog
    .getByLabel('services.yaml', { exact: true })
    .fill(
      `- Home:\n    - Home Assistant:\n        icon: home-assistant.png\n        href: ${link('ha')}\n` +
        '    - Grafana:\n        icon: mdi-chart-line\n        href: http://127.0.0.1:9/\n' +
        '        widget:\n          type: grafana\n',
    );
  await dialog.getByLabel('widgets.yaml', { exact: true }).fill('- openmeteo:\n    label: Home: garden\n');
  await dialog.getByRole('button', { name: 'Dry run' }).click();
  await dialog.getByRole('alert').waitFor();
  t.match(await dialog.getByRole('alert').textContent(), /widgets\.yaml line 2, column 12/);
  t.equal(await dialog.getByRole('button', { name: 'Import', exact: true }).isDisabled(), true);
  problems.splice(0);

  await dialog.getByLabel('widgets.yaml', { exact: true }).fill('- openmeteo:\n    label: Garden\n');
  await dialog.getByRole('button', { name: 'Dry run' }).click();
  const report = dialog.getByRole('region', { name: 'Import report' });
  await report.getByText('Dry run: nothing was written.').waitFor();
  t.same(await report.getByRole('region', { name: 'Would create' }).locator('li').allTextContents(), [
    'app: Home › Home Assistant',
    'app: Home › Grafana',
  ]);
  t.match(await report.getByRole('region', { name: 'Skipped' }).textContent(), /type grafana/);
  t.equal((await hub.sql`select count(*)::int as n from apps where group_name = 'Home'`)[0].n, 0);
  await checkAccessible(t, page, 'import dialog');

  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await report.getByText('Imported.').waitFor();
  t.same(
    (await hub.sql`select name, icon from apps where group_name = 'Home' order by position`).map(
      (row) => `${row.name} ${row.icon}`,
    ),
    ['Home Assistant brand:homeassistant', 'Grafana mdi:chart-line'],
  );
  await screenshot(page, 'homepage-import');
  await dialog.getByRole('button', { name: 'Close' }).click();
  t.same(problems, []);
});
