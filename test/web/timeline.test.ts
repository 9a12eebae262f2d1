// The Timeline screen in a real browser: events newest first, filtered by kind and by words, "Around here" showing
// what changed within half an hour, a new event arriving live from the stream, a click opening the subject's screen;
// the Services screen and a device's detail showing their own events.
import t from 'tap';
import { recordEvent } from '../../domains/timeline/record.ts';
import { ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const hub = await listeningHub(t);
const { page, problems } = await openBrowser(t);

const service = await hub.asOwner({
  method: 'POST',
  url: '/api/health/services',
  payload: { name: 'Jellyfin', kind: 'http', url: 'http://jellyfin.lan/', category: 'Media' },
});
if (service.statusCode !== 201) throw new Error(service.body);
const serviceId: string = service.json().id;
const mac = '3c:22:fb:00:00:01';
const device = await hub.asOwner({ method: 'POST', url: '/api/devices', payload: { mac, name: 'Laptop' } });
if (device.statusCode !== 201) throw new Error(device.body);

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
await recordEvent(hub.sql, {
  kind: 'service.down',
  severity: 'critical',
  title: 'Jellyfin went down',
  subject: { type: 'service', id: serviceId },
  at: minutesAgo(120),
});
await recordEvent(hub.sql, {
  kind: 'backup.ingested',
  title: 'Backup of the media share finished',
  subject: { type: 'backup', id: 'media' },
  at: minutesAgo(110),
});
await recordEvent(hub.sql, {
  kind: 'device.first_seen',
  severity: 'notice',
  title: `New device ${mac} (Apple)`,
  subject: { type: 'device', id: mac },
  at: minutesAgo(30),
});

t.test('sign in', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

const events = () => page.getByRole('region', { name: 'Events' }).locator('li');
/** Waits until the list shows `count` events. */
async function listed(count: number) {
  for (let i = 0; i < 100 && (await events().count()) !== count; i++) await page.waitForTimeout(100);
  if ((await events().count()) !== count) throw new Error(`the list did not come to ${count} events`);
}

t.test('newest first; filtered by kind and by words', async (t) => {
  await visitScreen(page, hub.origin, '/timeline', 'Timeline');
  await events().first().getByText(`New device ${mac} (Apple)`).waitFor();
  // Words only: an element without text (an icon's holder) is no event's title.
  const titles = (await events().locator('a, span:not(.badge)').allTextContents()).filter(
    (text) => text !== '',
  );
  t.same(titles, [`New device ${mac} (Apple)`, 'Backup of the media share finished', 'Jellyfin went down']);
  t.equal(await events().nth(2).locator('.badge').textContent(), 'critical');
  await screenshot(page, 'timeline');
  await checkAccessible(t, page, 'timeline');

  await page.getByLabel('Kind').selectOption({ label: 'Services' });
  await listed(1);
  t.equal(await events().first().getAttribute('data-kind'), 'service.down');
  await page.getByLabel('Kind').selectOption({ label: 'Everything' });
  await listed(3);
  await page.getByLabel('Search the timeline').fill('backup');
  await page.getByLabel('Search the timeline').press('Enter');
  await listed(1);
  t.equal(await events().first().getAttribute('data-kind'), 'backup.ingested');
  await page.getByLabel('Search the timeline').fill('');
  await page.getByLabel('Search the timeline').press('Enter');
  await listed(3);
});

t.test('around here: what changed within half an hour of the outage', async (t) => {
  await events()
    .filter({ hasText: 'Jellyfin went down' })
    .getByRole('button', { name: 'Around here' })
    .click();
  const around = page.getByRole('region', { name: 'Around here' });
  await around.getByText('Backup of the media share finished').waitFor();
  t.same(await around.locator('li').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind'))), [
    'service.down',
    'backup.ingested',
  ]);
  await around.getByRole('button', { name: 'Close' }).click();
});

t.test('a new event arrives live', async (t) => {
  // The stream follows the timeline from when it opened; a ping shows it does by now.
  await t.resolves(async () => {
    for (let i = 0; i < 50; i++) {
      await recordEvent(hub.sql, { kind: 'test.ping', title: `Ping ${i}` });
      if ((await page.getByText(/^Ping \d+$/).count()) > 0) return;
      await page.waitForTimeout(200);
    }
    throw new Error('no live event arrived');
  });
  await recordEvent(hub.sql, {
    kind: 'service.up',
    title: 'Jellyfin is back',
    subject: { type: 'service', id: serviceId },
  });
  await events().first().getByText('Jellyfin is back').waitFor();
});

t.test('a click opens the subject; Services and a device show their own events', async (t) => {
  await events().first().getByRole('link', { name: 'Jellyfin is back' }).click();
  await page.getByRole('heading', { name: 'Services', level: 1 }).waitFor();
  const recent = page.getByRole('region', { name: 'Recent service events' });
  await recent.getByText('Jellyfin is back').waitFor();
  t.equal(await recent.getByText('Backup of the media share finished').count(), 0, 'only service events');
  await page.getByRole('button', { name: 'Edit Jellyfin' }).click();
  const own = page.getByRole('dialog').getByRole('region', { name: "This service's events" });
  await own.getByText('Jellyfin went down').waitFor();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

  await visitScreen(page, hub.origin, '/devices', 'Devices');
  await page.getByRole('button', { name: 'Edit Laptop' }).click();
  const deviceEvents = page.getByRole('dialog').getByRole('region', { name: "This device's events" });
  await deviceEvents.getByText(`New device ${mac} (Apple)`).waitFor();
  await checkAccessible(t, page, 'device with its events');
  t.same(problems, [], 'no console errors');
});
