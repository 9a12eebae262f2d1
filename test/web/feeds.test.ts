// Feeds on the Capture screen in a real browser: a feed added by URL, the items of a polled feed with the unread
// filter, and an item opened (in a new tab) marked read.
import t from 'tap';
import { pollFeed } from '../../domains/feeds/poll.ts';
import { ownerToken } from '../helpers/app.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const site = await startUpstream(t, (request, response) => {
  if (request.url === '/rss.xml') {
    response.writeHead(200, { 'content-type': 'application/rss+xml' });
    return response.end(
      `<?xml version="1.0"?><rss version="2.0"><channel><title>Router news</title>` +
        `<item><title>Firmware 2.1 is out</title><link>${site.url}/post/1</link><guid>p1</guid>` +
        '<description>Faster Wi-Fi</description></item>' +
        `<item><title>Mesh setups compared</title><link>${site.url}/post/2</link><guid>p2</guid></item>` +
        '</channel></rss>',
    );
  }
  response.writeHead(200, { 'content-type': 'text/html' });
  response.end('<!doctype html><title>Post</title><p>Post</p>');
});

const hub = await listeningHub(t, { env: { INGEST_ALLOW_PRIVATE: '127.0.0.1/32' } });
const { page, context } = await openBrowser(t);
const created = await hub.asOwner({
  method: 'POST',
  url: '/api/feeds',
  payload: { url: `${site.url}/rss.xml` },
});
await pollFeed({ sql: hub.sql, config: hub.config }, created.json().id);

t.test('sign in', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

t.test('the feed, its unread items, and an opened item marked read', async (t) => {
  await visitScreen(page, hub.origin, '/capture', 'Capture');
  const feeds = page.locator('.feeds');
  await feeds.getByRole('button', { name: /Router news/ }).waitFor();
  t.equal(
    await feeds
      .getByRole('button', { name: /Router news/ })
      .locator('.badge')
      .textContent(),
    '2',
  );
  const links = feeds.locator('.feed-items a');
  await links.first().waitFor();
  t.same((await links.allTextContents()).sort(), ['Firmware 2.1 is out', 'Mesh setups compared']);
  await screenshot(page, 'feeds');
  await checkAccessible(t, page, 'feeds');

  const [tab] = await Promise.all([
    context.waitForEvent('page'),
    feeds.getByRole('link', { name: 'Firmware 2.1 is out' }).click(),
  ]);
  await tab.waitForLoadState();
  t.equal(tab.url(), `${site.url}/post/1`);
  await tab.close();
  await feeds.getByRole('link', { name: 'Firmware 2.1 is out' }).waitFor({ state: 'detached' });
  t.same(await links.allTextContents(), ['Mesh setups compared'], 'the read item leaves the unread list');
  const [item] = await hub.sql<{ read_at: Date | null }[]>`select read_at from feed_items where guid = 'p1'`;
  t.ok(item.read_at, 'and is read in the database');

  await feeds.getByLabel('Unread only').uncheck();
  await feeds.getByRole('link', { name: 'Firmware 2.1 is out' }).waitFor();
});

t.test('a feed added by URL', async (t) => {
  const feeds = page.locator('.feeds');
  await feeds.getByLabel('Feed URL').fill(`${site.url}/rss.xml?second`);
  await feeds.getByRole('button', { name: 'Add feed' }).click();
  await feeds.getByRole('button', { name: /rss\.xml\?second/ }).waitFor();
  const [row] = await hub.sql<{ url: string }[]>`select url from feeds where url like '%second'`;
  t.equal(row.url, `${site.url}/rss.xml?second`);
});
