// The Services form in a real browser against a real hub with its worker: a new HTTP service saved through the form
// appears in its category, and Check now has the worker reach a real HTTP server on loopback and mark it up.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { ownerToken } from '../helpers/app.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { listeningHub, openBrowser, visitScreen } from './browser.ts';

const site = await startUpstream(t, (_request, response) =>
  response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Wiki</h1>'),
);
const hub = await listeningHub(t, { worker: true });
const { page, problems } = await openBrowser(t);

t.test('sign in', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

t.test('a new HTTP service saved through the form is listed, then checked up', async (t) => {
  await visitScreen(page, hub.origin, '/services', 'Services');
  await page.getByRole('button', { name: 'Add service' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill('Home wiki');
  await dialog.getByLabel('Category').fill('Docs');
  await dialog.getByLabel('Kind').selectOption('http');
  await dialog.getByLabel('URL').fill(`${site.url}/`);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'detached' });

  const row = () => page.getByRole('region', { name: 'Docs' }).locator('li', { hasText: 'Home wiki' });
  await row().waitFor();
  const [saved] = await hub.sql<{ id: string; kind: string; url: string; state: string }[]>`
    select id, kind, url, state from monitored_services where name = 'Home wiki'`;
  t.match(saved, { kind: 'http', url: `${site.url}/` }, 'saved as typed');

  await page.getByRole('button', { name: 'Check now' }).click();
  // The worker checks it in its own time: wait for its result, then the screen shows it.
  while ((await hub.sql`select state from monitored_services where id = ${saved.id}`)[0].state !== 'up') {
    await sleep(100);
  }
  t.ok(site.requests.length >= 1, 'the check reached the server');
  await page.reload();
  await row().locator('.badge', { hasText: 'up' }).waitFor();
  t.equal(await row().locator('.badge').textContent(), 'up');
  t.same(problems, [], 'no console errors');
});
