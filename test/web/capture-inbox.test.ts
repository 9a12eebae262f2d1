// The capture inbox's read state in a real browser: the unread count, the unread filter, a document opened (and so
// read) from the inbox, marked unread again from its view, and an entry marked read from the inbox.
import t from 'tap';
import { createSpace, ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const hub = await listeningHub(t);
const { page } = await openBrowser(t);
const reading = await createSpace(hub, 'Reading');
async function upload(title: string) {
  const response = await hub.asOwner({
    method: 'POST',
    url: '/api/source-docs',
    payload: {
      space_id: reading.id,
      title,
      content: `# ${title}\n\nBasil, chard and beans.`,
      origin: 'upload',
    },
  });
  return response.json().id as string;
}
const seeds = await upload('Seed list');
const tools = await upload('Tool list');
const readAt = async (id: string) =>
  (await hub.sql<{ read_at: Date | null }[]>`select read_at from source_docs where id = ${id}`)[0].read_at;

t.test('sign in', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

t.test('the inbox counts the unread, opening a document reads it, and it can be unread again', async (t) => {
  await visitScreen(page, hub.origin, '/capture', 'Capture');
  const inbox = page.locator('.panel', { has: page.getByRole('heading', { name: /Inbox/ }) });
  await inbox.getByText('2 unread').waitFor();
  await inbox.getByLabel('Unread only').check();
  await checkAccessible(t, page, 'capture inbox');
  await screenshot(page, 'capture-inbox');

  await inbox.getByRole('link', { name: 'Seed list' }).click();
  await page.waitForURL(`${hub.origin}/knowledge/doc/${seeds}`);
  const view = page.getByRole('article', { name: 'Seed list' });
  await view.getByRole('button', { name: 'Mark unread' }).waitFor();
  t.ok(await readAt(seeds), 'opening the document marked it read');

  await view.getByRole('button', { name: 'Mark unread' }).click();
  await view.getByRole('button', { name: 'Mark read' }).waitFor();
  t.equal(await readAt(seeds), null, 'and its view marks it unread again');
  await view.getByRole('button', { name: 'Mark read' }).click();
  await view.getByRole('button', { name: 'Mark unread' }).waitFor();

  await visitScreen(page, hub.origin, '/capture', 'Capture');
  await inbox.getByText('1 unread').waitFor();
  await inbox.getByLabel('Unread only').check();
  await inbox.getByRole('link', { name: 'Seed list' }).waitFor({ state: 'detached' });
  await inbox.getByRole('button', { name: 'Mark read: Tool list' }).click();
  await inbox.getByText('Nothing unread.').waitFor();
  t.ok(await readAt(tools), 'the inbox marks an entry read');
  t.notOk(await inbox.getByText(/\d+ unread/).count(), 'no count when nothing is unread');
});
