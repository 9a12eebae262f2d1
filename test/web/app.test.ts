// The owner's dashboard in a real browser against a real hub: sign in, every screen (screenshot and accessibility
// check), a page created and found by search, an agent's proposal approved in place, a theme change painted
// before any script runs, an icon set uploaded and shown, sign out. Any console error or failed request fails it.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import t from 'tap';
import { svg, zip } from '../domains/icons/helpers.ts';
import { createAgent, ownerToken } from '../helpers/app.ts';
import { multipart } from '../helpers/multipart.ts';
import { repoRoot } from '../helpers/process.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

// The assistant runs the test suite's stand-in program (it speaks the real runner's stream-json and writes a page
// through the tool protocol, which becomes a draft).
const runnerDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-web-assistant-'));
t.teardown(() => rm(runnerDir, { recursive: true, force: true }));
const program = path.join(repoRoot, 'test', 'fixtures', 'assistant-program.ts');
const hub = await listeningHub(t, {
  env: {
    ASSISTANT_RUNNER: 'command',
    ASSISTANT_COMMAND: `"${process.execPath}" "${program}" normal "${runnerDir}"`,
  },
});
const { page, problems } = await openBrowser(t);

const accessible = (name: string, target: Page = page) => checkAccessible(t, target, name);

/** WCAG's contrast ratio of two computed colours, `rgb(r, g, b)`. */
function contrast(first: string, second: string): number {
  const luminance = (colour: string) => {
    const [r, g, b] = (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((part) => {
      const channel = Number(part) / 255;
      return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(first), luminance(second)].sort((a, b) => b - a);
  return (light + 0.05) / (dark + 0.05);
}
const visit = (path: string, heading: string) => visitScreen(page, hub.origin, path, heading);

t.test('sign in', async (t) => {
  await page.goto(hub.origin);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await screenshot(page, 'signin');
  await accessible('sign-in');
  await page.getByLabel('Owner token').fill('not-the-owner-token-000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  t.match(await page.getByRole('alert').textContent(), /not the owner token/);
  // The wrong token's 401 is the one failed request this test expects.
  t.match(problems.splice(0), [/HTTP 401: POST .*\/api\/session/]);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  const cookies = await page.context().cookies();
  const session = cookies.find((cookie) => cookie.name === 'hub_session');
  t.ok(session?.httpOnly, 'the session cookie is HttpOnly');
  t.equal(session?.sameSite, 'Strict');
});

t.test('the dashboard shows its cards; a dragged card keeps its place after a reload', async (t) => {
  const cards = page.locator('.grid-stack-item');
  await cards.first().waitFor();
  const types = await cards.evaluateAll((items) => items.map((item) => item.getAttribute('data-card')));
  t.match(types, ['clock', 'weather', 'host'], 'the default layout starts with clock, weather and host');
  const clock = page.locator('.grid-stack-item[data-card="clock"]');
  t.equal(await clock.getAttribute('gs-w'), '2', 'the clock spans 2 columns');
  await page.locator('.card-clock strong').waitFor();
  await page.getByRole('meter', { name: 'Memory' }).waitFor();
  await screenshot(page, 'dashboard');
  await accessible('dashboard');

  const switched = page.waitForResponse(
    (r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT',
  );
  await page.getByRole('button', { name: 'Free' }).click();
  t.equal((await switched).status(), 200, 'free mode is saved');
  // Read in the first frame that shows it pressed: its text, dark on the accent, must be readable from then on, not
  // once a background fading in from the surface has caught up.
  // A function, not a string: Playwright evaluates a string predicate with eval, which the page's CSP refuses once
  // the first check comes back empty.
  const pressed = await page.waitForFunction(() => {
    const page = globalThis as unknown as {
      document: { querySelector(selector: string): { textContent: string | null } | null };
      getComputedStyle(element: unknown): { color: string; backgroundColor: string };
    };
    const button = page.document.querySelector('.segmented button[aria-pressed="true"]');
    if (button?.textContent !== 'Free') return undefined;
    const style = page.getComputedStyle(button);
    return [style.color, style.backgroundColor];
  });
  const [text, background] = (await pressed.jsonValue()) as [string, string];
  t.ok(
    contrast(text, background) >= 4.5,
    `the pressed placement reads at once: ${text} on ${background}, ${contrast(text, background).toFixed(2)}:1`,
  );
  await clock.waitFor();
  const saved = page.waitForResponse(
    (r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT',
  );
  const head = page.locator('.grid-stack-item[data-card="clock"] .card-head');
  const box = await head.boundingBox();
  if (!box) throw new Error('the clock card is not shown');
  const grid = await page.locator('.grid-stack').boundingBox();
  const column = (grid?.width ?? 1200) / 12;
  await page.mouse.move(box.x + 20, box.y + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + 20 + column * 2, box.y + 260, { steps: 12 });
  await page.mouse.move(box.x + 20 + column * 3, box.y + 300, { steps: 12 });
  await page.mouse.up();
  t.equal((await saved).status(), 200, 'the new position is saved');
  const moved = { x: await clock.getAttribute('gs-x'), y: await clock.getAttribute('gs-y') };
  t.not(moved.y ?? '0', '0', 'the clock moved down');
  await page.reload();
  await page.locator('.grid-stack-item[data-card="clock"]').waitFor();
  const after = { x: await clock.getAttribute('gs-x'), y: await clock.getAttribute('gs-y') };
  t.same(after, moved, 'the position is kept after a reload');
  const layout = (await hub.asOwner({ method: 'GET', url: '/api/dashboard/layout' })).json();
  t.equal(layout.mode, 'free');

  // Another tab changes the layout: this one's next save is refused (412) and the newer layout is shown instead.
  const elsewhere = layout.cards.filter((card: { type: string }) => card.type !== 'storage');
  const changed = await hub.asOwner({
    method: 'PUT',
    url: '/api/dashboard/layout',
    payload: { mode: 'free', cards: elsewhere },
  });
  t.equal(changed.statusCode, 200);
  const refused = page.waitForResponse(
    (r) => r.url().endsWith('/api/dashboard/layout') && r.request().method() === 'PUT',
  );
  await page.getByLabel('Card to add').selectOption('blank');
  await page.getByRole('button', { name: 'Add card' }).click();
  t.equal((await refused).status(), 412, 'the stale save is refused');
  await page.getByText('The layout was changed elsewhere').waitFor();
  await page.locator('.grid-stack-item[data-card="storage"]').waitFor({ state: 'detached' });
  t.equal(await page.locator('.grid-stack-item[data-card="blank"]').count(), 0, 'the newer layout is shown');
  // The refused save is the one failed request here (the browser also logs it to the console).
  for (const pattern of [/HTTP 412: PUT .*\/api\/dashboard\/layout/, /status of 412/]) {
    const seen = problems.findIndex((problem) => pattern.test(problem));
    t.ok(seen >= 0, `seen: ${pattern}`);
    if (seen >= 0) problems.splice(seen, 1);
  }

  await page.getByLabel('Card to add').selectOption('flame');
  await page.getByRole('button', { name: 'Add card' }).click();
  await page.getByRole('img', { name: 'An animated flame' }).waitFor();
  await page.getByRole('button', { name: 'Remove Flame card' }).click();
  await page.getByRole('img', { name: 'An animated flame' }).waitFor({ state: 'detached' });
  const kept = (await hub.asOwner({ method: 'GET', url: '/api/dashboard/layout' })).json();
  t.notOk(
    kept.cards.some((card: { type: string }) => card.type === 'flame'),
    'the removed card is gone',
  );
});

t.test('a link opened in a new tab leaves this screen as it is', async (t) => {
  const before = page.url();
  const [opened] = await Promise.all([
    page.context().waitForEvent('page'),
    page.getByRole('link', { name: 'Devices', exact: true }).click({ modifiers: ['ControlOrMeta'] }),
  ]);
  await opened.waitForLoadState('domcontentloaded');
  t.equal(new URL(opened.url()).pathname, '/devices', 'the new tab opens the link');
  t.equal(page.url(), before, 'this tab stays where it was');
  await opened.close();
});

t.test('create a page and find it by searching', async (t) => {
  await visit('/knowledge', 'Knowledge');
  await page.getByLabel('New space').fill('Home lab');
  await page.getByLabel('New space').press('Enter');
  await page.getByRole('link', { name: 'Home lab' }).waitFor();
  await page.getByLabel('New page').fill('Backup plan');
  await page.getByLabel('New page').press('Enter');
  await page.getByRole('heading', { name: 'Backup plan' }).waitFor();
  await page.getByRole('button', { name: 'Edit' }).click();
  await page
    .getByLabel('Markdown')
    .fill(
      '# Restic\n\nNightly **restic** snapshots to the zeppelinvault share; the Zigbee bridge is left out.',
    );
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.locator('.markdown strong', { hasText: 'restic' }).waitFor();
  await screenshot(page, 'knowledge');
  await accessible('knowledge');

  // Drag a second page onto the middle of the first: it becomes its subpage.
  await page.getByLabel('New page').fill('Restore drill');
  await page.getByLabel('New page').press('Enter');
  await page.getByRole('heading', { name: 'Restore drill' }).waitFor();
  const tree = page.getByRole('list', { name: 'Pages' });
  const moved = page.waitForResponse(
    (r) => /\/api\/pages\/[0-9a-f-]+$/.test(r.url()) && r.request().method() === 'PATCH',
  );
  await tree
    .getByRole('link', { name: 'Restore drill' })
    .dragTo(tree.getByRole('link', { name: 'Backup plan' }));
  t.equal((await moved).status(), 200, 'the move is saved');
  const [drill] = await hub.sql`
    select parent.title from pages p join pages parent on parent.id = p.parent_id where p.title = 'Restore drill'`;
  t.equal(drill?.title, 'Backup plan', 'the dragged page is nested under the other');
  await page.getByRole('link', { name: 'Backup plan' }).click();
  await page.getByRole('heading', { name: 'Backup plan' }).waitFor();

  await page.keyboard.press('Control+k');
  await page.getByLabel('Search everything').fill('zeppelinvault');
  const hit = page.getByRole('region', { name: 'Pages' }).getByRole('button', { name: /Backup plan/ });
  await hit.waitFor();
  t.match(await hit.locator('mark').first().textContent(), /zeppelinvault/i, 'the snippet marks the match');
  await screenshot(page, 'search');
  await accessible('search');
  await page.keyboard.press('Escape');
  t.equal(await page.getByRole('dialog', { name: 'Search' }).count(), 0);

  const projects = page.getByRole('tab', { name: 'Projects' });
  await projects.click();
  await page.getByLabel('New project').fill('Offsite backups');
  await page.getByLabel('New project').press('Enter');
  await page.getByLabel('New task').fill('Buy a second disk');
  await page.getByLabel('New task').press('Enter');
  await page.getByRole('cell', { name: 'Buy a second disk' }).waitFor();
  await screenshot(page, 'projects');
  await accessible('projects');
});

t.test("an agent's proposal is approved in place", async (t) => {
  const agent = await createAgent(hub, { name: 'scribe', tier: 'suggest' });
  const [space] = (await hub.asOwner({ method: 'GET', url: '/api/spaces' })).json().items;
  const proposed = await hub.asAgent(agent.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'Proposed runbook', body: 'Restart the NAS on Sundays.' },
  });
  t.equal(proposed.statusCode, 202);
  await visit('/approvals', 'Approvals');
  const card = page.getByRole('article', { name: /create page: Proposed runbook/ });
  await card.waitFor();
  await screenshot(page, 'approvals');
  await accessible('approvals');
  await card.getByRole('button', { name: 'Approve' }).click();
  await card.getByText('applied').waitFor();
  const pages = await hub.sql`select title from pages where title = 'Proposed runbook'`;
  t.equal(pages.length, 1, 'the approved page exists');
  await page.getByRole('cell', { name: 'approve' }).first().waitFor();
});

t.test("an agent's upload waits as a file the owner can download", async (t) => {
  const agent = await createAgent(hub, { name: 'filer', tier: 'suggest' });
  const [space] = (await hub.asOwner({ method: 'GET', url: '/api/spaces' })).json().items;
  const text = 'Warranty card for the NAS, valid until 2031.';
  const proposed = await hub.asAgent(agent.token, {
    method: 'POST',
    url: '/api/capture/upload',
    ...multipart([
      { name: 'space_id', value: space.id },
      { name: 'file', filename: 'warranty.txt', type: 'text/plain', value: text },
    ]),
  });
  t.equal(proposed.statusCode, 202);
  await page.reload();
  const card = page.getByRole('article', { name: /create upload: warranty\.txt/ });
  await card.waitFor();
  const link = card.getByRole('link', { name: 'warranty.txt' });
  const href = await link.getAttribute('href');
  t.equal(href, `/api/pending-changes/${proposed.json().pending_change_id}/file`);
  const download = await page.request.get(`${hub.origin}${href}`);
  t.equal(download.status(), 200);
  t.equal(await download.text(), text, 'the owner’s session downloads the bytes');
  t.match(download.headers()['content-disposition'], /^attachment/);
  await card.getByRole('button', { name: 'Reject' }).click();
  await card.getByText('rejected').waitFor();
});

t.test('the assistant streams its answer; its draft is approved in place', async (t) => {
  await visit('/assistant', 'Assistant');
  const turnResponse = page.waitForResponse((r) => r.url().endsWith('/api/assistant/turn'));
  await page.getByLabel('Message').fill('Write down how I pair the door sensors');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('I drafted a page for you.').waitFor();
  t.match(await (await turnResponse).text(), /event: draft/, 'the turn streamed a draft');
  const card = page.getByRole('article', { name: /create page/ });
  await card.waitFor();
  await screenshot(page, 'assistant');
  await accessible('assistant');
  await card.getByRole('button', { name: 'Approve' }).click();
  await card.getByText('applied').waitFor();
  const [change] = await hub.sql`select status from pending_changes order by created_at desc limit 1`;
  t.equal(change.status, 'applied');
});

t.test('devices and services', async (t) => {
  const added = await hub.asOwner({
    method: 'POST',
    url: '/api/devices',
    payload: { mac: '52:54:00:12:34:56', ip: '192.168.1.20', name: 'Proxmox host' },
  });
  t.equal(added.statusCode, 201);
  await visit('/devices', 'Devices');
  await page.getByRole('button', { name: 'Edit Proxmox host' }).click();
  const editor = page.getByRole('dialog', { name: 'Edit Proxmox host' });
  await editor.getByPlaceholder(/Search icons/).fill('proxmox');
  await editor.getByRole('button', { name: 'Proxmox' }).first().click();
  await editor.getByLabel('Location').fill('Rack');
  await editor.getByLabel(/Watch/).check();
  await screenshot(page, 'device-editor');
  await accessible('device editor');
  await editor.getByRole('button', { name: 'Save' }).click();
  await page.locator('img.device-icon').first().waitFor();
  const device = (await hub.asOwner({ method: 'GET', url: '/api/devices/52:54:00:12:34:56' })).json();
  t.equal(device.icon, 'brand:proxmox', 'the picked icon is saved');
  t.equal(device.location, 'Rack');
  t.equal(device.watch, true, 'watched: an alert when it is offline');
  t.ok(await page.getByText('watched', { exact: true }).isVisible(), 'the list marks it');
  await screenshot(page, 'devices');
  await accessible('devices');
  await visit('/services', 'Services');
  await page.getByRole('button', { name: 'Add service' }).click();
  await page.getByLabel('Name').fill('Hub itself');
  await page.getByLabel('Category').fill('Core');
  await page.getByLabel(/URL/).fill(`${hub.origin}/api/healthz`);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('region', { name: 'Core' }).getByText('Hub itself').waitFor();
  await screenshot(page, 'services');
  await accessible('services');
});

t.test('capture and speed tests', async () => {
  await visit('/capture', 'Capture');
  await page.getByText('Drop files here').waitFor();
  await screenshot(page, 'capture');
  await accessible('capture');
  await visit('/speed', 'Speed tests');
  await page.getByRole('heading', { name: 'Schedule and thresholds' }).waitFor();
  await screenshot(page, 'speed');
  await accessible('speed tests');
});

t.test('an icon set upload shows its icons', async (t) => {
  await visit('/settings', 'Settings');
  const archive = await zip([
    { name: 'router.svg', bytes: svg('<circle cx="12" cy="12" r="10" fill="#4f9cf9"/>') },
    { name: 'nas.svg', bytes: svg('<rect x="3" y="3" width="18" height="18" fill="#a77bf3"/>') },
  ]);
  await page.getByLabel('Set name').fill('homelab');
  await page.getByLabel('Zip of SVG or PNG icons').setInputFiles({
    name: 'homelab.zip',
    mimeType: 'application/zip',
    buffer: archive,
  });
  await page.getByRole('button', { name: 'Upload' }).click();
  const icons = page.getByRole('list', { name: 'Icons of homelab' }).getByRole('img');
  await icons.first().waitFor();
  t.equal(await icons.count(), 2);
  // The grid loads its images lazily: bring them into view first.
  await icons.last().scrollIntoViewIfNeeded();
  await page.waitForLoadState('networkidle');
  const loaded = await icons.evaluateAll((images) =>
    images.every((image) => (image as unknown as { naturalWidth: number }).naturalWidth > 0),
  );
  t.ok(loaded, 'every icon image loaded');
});

t.test('agents and tokens: a minted token is shown once', async (t) => {
  const row = page.getByRole('row', { name: /scribe/ });
  await row.getByRole('button', { name: 'Token' }).click();
  const shown = await page.locator('code.token').textContent();
  t.match(shown, /^hub_agent_/);
  await screenshot(page, 'settings');
  await accessible('settings');
  await page.getByRole('button', { name: 'Done' }).click();
  t.equal(await page.locator('code.token').count(), 0);
});

t.test('a theme change shows after reload with no flash', async (t) => {
  await page.getByLabel('background', { exact: true }).fill('#203a2c');
  await page.getByRole('button', { name: 'Save theme' }).click();
  await page.getByText('Theme saved').waitFor();
  // With the app's scripts emptied, what paints is the server's HTML and CSS alone: the first paint.
  await page.route('**/assets/*.js', (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: '' }),
  );
  await page.reload();
  const first = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
  t.equal(first, 'rgb(32, 58, 44)', 'the first paint has the new background');
  await page.unroute('**/assets/*.js');
  await page.reload();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.getByLabel('Keep clips').waitFor();
  await page.waitForLoadState('networkidle');
  t.equal(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor'), 'rgb(32, 58, 44)');
  await hub.asOwner({ method: 'DELETE', url: '/api/theme' });
});

t.test('sign out', async (t) => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const state = await page.evaluate(() => fetch('/api/session').then((r) => r.json()));
  t.same(state, { signed_in: false, via: null, expires_at: null });
});

t.test('no console error and no failed request', async (t) => {
  t.same(problems, []);
});
