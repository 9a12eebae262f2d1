// Incidents in a real browser: a backup to the NAS failed (open) and one to a USB disk failed then ran again (resolved),
// both opened by the hub's follower on the worker. The dashboard's incidents card lists the open one; the Incidents
// screen lists both, open first, and its link opens the incident's page in the Incidents space. The Timeline shows
// the open one above the events, their openings and resolutions under the Incidents kind, each linking to the
// Incidents screen, and takes the open one away when it is resolved.
import t from 'tap';
import { ownerToken } from '../helpers/app.ts';
import { until } from '../helpers/process.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

t.setTimeout(180_000);
const hub = await listeningHub(t, { worker: true });
const { page, problems } = await openBrowser(t);

async function backup(target: string, status: string, finished: string) {
  const response = await hub.asOwner({
    method: 'POST',
    url: '/api/backups',
    payload: {
      started_at: '2026-11-26T01:00:00Z',
      finished_at: finished,
      status,
      target: { name: target, free_bytes: 10, total_bytes: 100 },
      guests: [],
    },
  });
  if (response.statusCode !== 201) throw new Error(`the backup run was refused: ${response.body}`);
}
await backup('usb', 'failed', '2026-11-26T01:10:00Z');
await backup('usb', 'ok', '2026-11-26T01:40:00Z');
await backup('nas', 'failed', '2026-11-26T02:00:00Z');
await until('the follower to open both incidents', async () => {
  const rows = await hub.sql<{ state: string }[]>`select state from incidents where page_id is not null`;
  return rows.length === 2 && rows.some((row) => row.state === 'resolved') ? true : undefined;
});
const layout = await hub.asOwner({
  method: 'PUT',
  url: '/api/dashboard/layout',
  payload: { mode: 'snap', cards: [{ id: 'incidents', type: 'incidents', size: 6, config: {} }] },
});
if (layout.statusCode !== 200) throw new Error(`the layout was refused: ${layout.body}`);

t.test('the dashboard card lists the open incident', async (t) => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const card = page.getByRole('region', { name: 'Incidents', exact: true });
  await card.getByRole('link', { name: 'Backup to nas failed' }).waitFor();
  t.equal(await card.getByRole('listitem').count(), 1, 'only the open one');
  t.notMatch(await card.textContent(), /usb/);
});

t.test('the Incidents screen: open first, resolved with its duration, a link to the page', async (t) => {
  await visitScreen(page, hub.origin, '/incidents', 'Incidents');
  const list = page.getByRole('list', { name: 'Incidents' });
  await list.getByRole('listitem').nth(1).waitFor();
  const [first, second] = await list.getByRole('listitem').allTextContents();
  t.match(first, /open.*Backup to nas failed/);
  t.match(second, /resolved.*Backup to usb failed.*lasted 30 min/);
  await screenshot(page, 'incidents');
  await checkAccessible(t, page, 'incidents');

  await list.getByRole('link', { name: 'Backup to usb failed' }).click();
  await page.waitForURL(/\/knowledge\/page\//);
  await page.getByText('Root cause: backup to usb (backup)').waitFor();
  t.same(problems, [], 'no console error or failed request');
});

t.test('the Timeline: the open incident above the events, and theirs under the Incidents kind', async (t) => {
  await visitScreen(page, hub.origin, '/timeline', 'Timeline');
  const open = page.getByRole('region', { name: 'Open incidents' });
  await open.getByRole('link', { name: 'Backup to nas failed' }).waitFor();
  t.equal(await open.getByRole('listitem').count(), 1, 'only the open one');
  await page.getByLabel('Kind').selectOption({ label: 'Incidents' });
  const events = page.getByRole('region', { name: 'Events' }).locator('li');
  await events.filter({ hasText: 'Incident resolved: Backup to usb failed' }).waitFor();
  await until('the list to hold only incidents', async () =>
    (await events.count()) === 3 ? true : undefined,
  );
  t.same(
    new Set(await events.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind')))),
    new Set(['incident.opened', 'incident.resolved']),
  );
  await screenshot(page, 'timeline-incidents');
  await checkAccessible(t, page, 'timeline with incidents');

  // Resolved by the owner: the event arrives on the stream, and the open incidents are read again.
  const [nas] = await hub.sql<{ id: string }[]>`select id from incidents where state = 'open'`;
  const resolved = await hub.asOwner({
    method: 'PATCH',
    url: `/api/incidents/${nas.id}`,
    payload: { state: 'resolved' },
  });
  t.equal(resolved.statusCode, 200);
  await events.filter({ hasText: 'Incident resolved: Backup to nas failed' }).waitFor();
  await open.waitFor({ state: 'detached' });
  await events.filter({ hasText: 'Incident resolved: Backup to nas failed' }).getByRole('link').click();
  await page.getByRole('heading', { level: 1, name: 'Incidents' }).waitFor();
  t.same(problems, [], 'no console error or failed request');
});
