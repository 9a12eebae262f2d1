// A new owner's first hour, in a real browser against a real hub with its worker running: every card type shows the
// data the hub has (weather and Proxmox from fake upstreams on loopback, the rest recorded as the hub records it)
// and updates live; a page on loopback is captured and read from the inbox, from Knowledge and from search; Ctrl-K
// finds every kind and a task opens where it lives; proposals are shown in words and agents by name; the sidebar
// runs the whole length of a long screen. Any console error or failed request fails it.

import path from 'node:path';
import t from 'tap';
import { captureSite, greenhouse, greenhouseLog, released } from '../domains/capture/site.ts';
import { fakeOpenMeteo, fakeProxmox, pveToken } from '../domains/dashboard/fakes.ts';
import { addRouter, recordSpeedTest, recordUsage } from '../domains/dashboard/seed.ts';
import { createAgent, createSpace, ownerToken } from '../helpers/app.ts';
import { artifacts, checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const weather = await fakeOpenMeteo(t);
const pve = await fakeProxmox(t);
const site = await captureSite(t);
// WEATHER_LATITUDE is not set: the weather card's own place is enough.
const hub = await listeningHub(t, {
  worker: true,
  env: {
    WEATHER_URL: weather.url,
    PVE_URL: pve.url,
    PVE_TOKEN: pveToken,
    VOID_INGEST_ALLOW_PRIVATE: '1',
  },
});
const { page, problems } = await openBrowser(t);

const accessible = (name: string) => checkAccessible(t, page, name);
const visit = (path: string, heading: string) => visitScreen(page, hub.origin, path, heading);

async function search(query: string) {
  await page.keyboard.press('Control+k');
  const input = page.getByLabel('Search everything');
  await input.fill(query);
  return page.getByRole('dialog', { name: 'Search' });
}

// What the hub has before the owner first looks: a speed test the worker ran, a service a check found up, a model
// use, a backup run, and a layout with every card type (the clock and the weather with their own config).
await recordSpeedTest(hub, { download: 412.5, upload: 38.2, ping: 9.1, hoursAgo: 2 });
const routerId = await addRouter(hub);
await hub.sql`
  update monitored_services set state = 'up', latency_ms = 4, checked_at = now(), since = now()
  where id = ${routerId}`;
await recordUsage(hub, { input: 1200, output: 300 });
await hub.asOwner({
  method: 'POST',
  url: '/api/backups',
  payload: {
    started_at: new Date(Date.now() - 3_600_000).toISOString(),
    finished_at: new Date(Date.now() - 3_000_000).toISOString(),
    status: 'ok',
    target: { name: 'nas', free_bytes: 4e12, total_bytes: 8e12 },
    guests: [],
  },
});
const card = (id: string, type: string, size: number, config: Record<string, unknown> = {}) => ({
  id,
  type,
  size,
  config,
});
const layout = await hub.asOwner({
  method: 'PUT',
  url: '/api/dashboard/layout',
  payload: {
    mode: 'snap',
    cards: [
      card('clock', 'clock', 2, { title: 'Home time', timezone: 'Europe/Berlin' }),
      card('weather', 'weather', 2, {
        title: 'Garden weather',
        latitude: 52.52,
        longitude: 13.41,
        label: 'Berlin',
      }),
      card('host', 'host', 4),
      card('health', 'health', 4),
      card('speedtest', 'speedtest', 4),
      card('cluster', 'cluster', 4),
      card('storage', 'storage', 4),
      card('backups', 'backups', 4),
      card('ai-usage', 'ai-usage', 4),
      card('blank', 'blank', 2),
      card('flame', 'flame', 2),
    ],
  },
});
if (layout.statusCode !== 200) throw new Error(`the layout was refused: ${layout.body}`);

t.test('a new owner signs in; every card shows the data the hub has, and updates live', async (t) => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();

  const region = (name: string) => page.getByRole('region', { name, exact: true });
  await region('Home time').getByText('Europe/Berlin').waitFor();
  await region('Garden weather').locator('.card-figure', { hasText: '°C' }).waitFor();
  t.match(await region('Garden weather').textContent(), /Berlin/, "the weather card's own place and label");
  await region('Host').getByRole('meter', { name: 'Memory' }).waitFor();
  await region('Service health').getByText('1 of 1 up').waitFor();
  t.match(await region('Service health').textContent(), /Router/);
  await region('Speed test').getByText('412.5 Mbps').waitFor();
  await region('Cluster')
    .getByText(/nodes online/)
    .waitFor();
  await region('Storage')
    .getByText(/^(HEALTHY|WATCH|ATTENTION)$/)
    .waitFor();
  await region('Backups')
    .getByText(/Last success/)
    .waitFor();
  const tokensToday = region('AI usage').locator('.figures > div', { hasText: 'tokens today' }).locator('dd');
  t.equal(await tokensToday.textContent(), '1.5K', 'tokens used today');
  await region('Flame').getByRole('img', { name: 'An animated flame' }).waitFor();
  const bodies = await page.locator('.card-body').allTextContents();
  t.notMatch(bodies.join('\n'), /No data yet|Not configured yet/, 'no card waits for data the hub has');
  t.equal(await page.locator('.grid-stack-item').count(), 11, 'all eleven card types are shown');
  await screenshot(page, 'first-hour-dashboard');
  await accessible('dashboard');

  // The worker records a new speed test and a model is used: the cards change without a reload.
  await recordSpeedTest(hub, { download: 98.4, upload: 20.1, ping: 14 });
  await region('Speed test').getByText('98.4 Mbps').waitFor();
  await recordUsage(hub, { input: 2000, output: 500 });
  await region('AI usage').locator('.figures dd', { hasText: /^4K$/ }).first().waitFor();
});

t.test('a captured page is read from the inbox, from Knowledge and from search', async (t) => {
  await visit('/capture', 'Capture');
  await page.getByLabel('URL', { exact: true }).fill(`${site.url}${greenhouse.path}`);
  await page.getByRole('button', { name: 'Capture', exact: true }).click();
  const inbox = page.getByRole('table');
  const captured = inbox.getByRole('link', { name: 'Watering the greenhouse' });
  await captured.waitFor({ timeout: 20_000 });
  t.match(await inbox.textContent(), /completed/);

  // A page that is missing fails; once it is back, Retry fetches it.
  await page.getByLabel('URL', { exact: true }).fill(`${site.url}${greenhouseLog.path}`);
  await page.getByRole('button', { name: 'Capture', exact: true }).click();
  const retry = page.getByRole('button', { name: `Retry ${site.url}${greenhouseLog.path}` });
  await retry.waitFor({ timeout: 20_000 });
  t.match(await inbox.textContent(), /failed.*404|404.*failed/s, 'the failure and its error are shown');
  await screenshot(page, 'first-hour-capture-inbox');
  await accessible('capture inbox');
  const [failedJob] = await hub.sql<{ job_id: string }[]>`
    select job_id::text from captures where url = ${`${site.url}${greenhouseLog.path}`}`;
  await released(hub.sql, failedJob.job_id);
  await retry.click();
  await inbox.getByRole('link', { name: 'Greenhouse log' }).waitFor({ timeout: 20_000 });

  await captured.click();
  await page.waitForURL(/\/knowledge\/doc\/[0-9a-f-]{36}$/);
  const article = page.getByRole('article', { name: 'Watering the greenhouse' });
  await article.getByText('Drip lines run at dawn').waitFor();
  t.equal(
    await article.getByRole('link', { name: `${site.url}${greenhouse.path}` }).getAttribute('href'),
    `${site.url}${greenhouse.path}`,
    'the source URL is shown',
  );
  await screenshot(page, 'first-hour-document');
  await accessible('document');

  await visit('/knowledge', 'Knowledge');
  await page.getByRole('link', { name: 'Inbox' }).click();
  await page.getByRole('tab', { name: 'Documents' }).click();
  await page.getByRole('list', { name: 'Documents' }).getByRole('link', { name: 'Greenhouse log' }).click();
  await page.getByRole('article', { name: 'Greenhouse log' }).getByText('The vents opened').waitFor();
  t.equal(
    await page.getByRole('article', { name: 'Greenhouse log' }).locator('h1').textContent(),
    'Greenhouse log',
    'Markdown is rendered',
  );

  const palette = await search('rain barrel');
  await palette
    .getByRole('region', { name: 'Documents' })
    .getByRole('button', { name: /Watering/ })
    .click();
  await page.waitForURL(/\/knowledge\/doc\//);
  await page.getByRole('article', { name: 'Watering the greenhouse' }).waitFor();
});

t.test('Ctrl-K shows every kind it finds, and each opens where it lives', async (t) => {
  const space = await createSpace(hub, 'Power');
  const owned = async (url: string, payload: Record<string, unknown>) => {
    const response = await hub.asOwner({ method: 'POST', url, payload });
    t.equal(response.statusCode, 201, `created at ${url}`);
    return response.json() as { id: string };
  };
  const project = await owned('/api/projects', { space_id: space.id, name: 'UPS upkeep' });
  await owned('/api/tasks', { project_id: project.id, title: 'Check the charger' });
  const task = await owned('/api/tasks', { project_id: project.id, title: 'Replace the UPS battery' });
  const resource = await owned('/api/resources', { space_id: space.id, name: 'Rack UPS', kind: 'device' });
  await owned('/api/refs', {
    space_id: space.id,
    source: 'web',
    external_id: 'ups-datasheet',
    url: 'https://example.org/ups.pdf',
    title: 'UPS datasheet',
  });
  await owned('/api/pages', { space_id: space.id, title: 'Power notes', body: 'The UPS carries the rack.' });
  const [conversation] = await hub.sql<{ id: string }[]>`
    insert into conversations (space_id, title) values (${space.id}, 'Power chat') returning id`;
  const [message] = await hub.sql<{ id: string }[]>`
    insert into messages (conversation_id, role, content)
    values (${conversation.id}, 'user', 'When does the UPS need a new battery?') returning id`;

  const palette = await search('UPS');
  for (const kind of ['Pages', 'Projects', 'Tasks', 'Resources', 'References', 'Messages']) {
    await palette.getByRole('region', { name: kind }).waitFor();
  }
  await screenshot(page, 'first-hour-search');
  await accessible('search');
  await palette
    .getByRole('region', { name: 'Tasks' })
    .getByRole('button', { name: /Replace the UPS battery/ })
    .click();
  await page.waitForURL(`${hub.origin}/knowledge/task/${task.id}`);
  const row = page.getByRole('row', { name: /Replace the UPS battery/ });
  await row.waitFor();
  t.equal(await row.getAttribute('aria-current'), 'true', 'the task is marked where it lives');
  await page.getByRole('tab', { name: 'Projects', selected: true }).waitFor();
  t.match(await page.locator('.projects').textContent(), /UPS upkeep/, "in its project's tasks");
  await screenshot(page, 'first-hour-task');

  await (await search('Rack UPS'))
    .getByRole('region', { name: 'Resources' })
    .getByRole('button', { name: /Rack UPS/ })
    .click();
  await page.waitForURL(`${hub.origin}/knowledge/resource/${resource.id}`);
  await page.getByRole('article', { name: 'Rack UPS' }).waitFor();

  await (await search('new battery'))
    .getByRole('region', { name: 'Messages' })
    .getByRole('button', { name: /Power chat/ })
    .click();
  await page.waitForURL(`${hub.origin}/assistant/space/${space.id}#message-${message.id}`);
  await page
    .getByRole('combobox', { name: /Conversation/ })
    .getByRole('option', { name: 'Power companion', selected: true })
    .waitFor({ state: 'attached' });
  t.pass("the message opens in its space's conversation");
});

t.test('proposals are shown in words and agents by name', async (t) => {
  const space = await createSpace(hub, 'Runbooks');
  const created = await hub.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'NAS restart', body: 'Stop the containers first.' },
  });
  const scribe = await createAgent(hub, { name: 'scribe', tier: 'suggest' });
  const proposed = await hub.asAgent(scribe.token, {
    method: 'PATCH',
    url: `/api/pages/${created.json().id}`,
    payload: { title: 'NAS restart on Sundays' },
  });
  t.equal(proposed.statusCode, 202);
  const archivist = await createAgent(hub, { name: 'archivist', tier: 'owner' });
  const direct = await hub.asAgent(archivist.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'Written directly' },
  });
  t.equal(direct.statusCode, 201);

  await visit('/approvals', 'Approvals');
  const card = page.getByRole('article', { name: /update page: NAS restart on Sundays/ });
  await card.getByText('NAS restart', { exact: true }).waitFor();
  const shown = await card.textContent();
  t.match(shown, /Title\s*NAS restart\s*→\s*NAS restart on Sundays/, 'what the update changes, from and to');
  t.notMatch(shown, /[{}"]/, 'no raw JSON');
  t.match(shown, /scribe/);
  const log = page.getByRole('region', { name: 'Audit log' });
  await log.getByRole('cell', { name: 'archivist' }).waitFor();
  t.notMatch(await log.textContent(), new RegExp(archivist.id), 'no agent id in the log');
  await card.getByRole('button', { name: 'Approve' }).click();
  await card.getByText('applied').waitFor();
  await log.getByText('proposed by scribe').waitFor();
  await screenshot(page, 'first-hour-approvals');
  await accessible('approvals');
});

t.test("the sidebar's background runs the whole length of a long screen", async (t) => {
  const space = await createSpace(hub, 'Long reads');
  const body = Array.from({ length: 150 }, (_, i) => `Paragraph ${i + 1} of a long page.`).join('\n\n');
  const created = await hub.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'A long page', body },
  });
  await page.goto(`${hub.origin}/knowledge/page/${created.json().id}`);
  await page.getByText('Paragraph 150 of a long page.').waitFor();
  // Measured in the page (page coordinates): where the sidebar's box starts and how tall it is.
  const measured = await page.evaluate<{
    top: number;
    height: number;
    page: number;
    viewport: number;
    background: string;
  }>(`(() => {
    const sidebar = document.querySelector('nav.sidebar');
    const box = sidebar.getBoundingClientRect();
    return {
      top: box.top + scrollY,
      height: box.height,
      page: document.documentElement.scrollHeight,
      viewport: innerHeight,
      background: getComputedStyle(sidebar).backgroundColor,
    };
  })()`);
  t.ok(measured.page > 3 * measured.viewport, 'the screen is several viewports long');
  t.equal(measured.top, 0);
  t.ok(measured.height >= measured.page - 1, `the sidebar is ${measured.height} px of ${measured.page}`);
  t.not(measured.background, 'rgba(0, 0, 0, 0)', 'the sidebar itself carries the background');
  await page.evaluate('scrollTo(0, document.documentElement.scrollHeight)');
  t.ok(
    await page.getByRole('link', { name: 'Dashboard', exact: true }).isVisible(),
    'its links stay in view at the bottom',
  );
  await page.screenshot({ path: path.join(artifacts, 'first-hour-long-screen.png'), fullPage: true });
});

t.test('no console error and no failed request', async (t) => {
  t.same(problems, []);
});
