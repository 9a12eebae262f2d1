// Links between pages in a real browser: `[[Page title]]` is a link to that page of the space (the text alone when
// there is none), and the page it leads to lists the page linking to it.
import t from 'tap';
import { createSpace, ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser } from './browser.ts';

const hub = await listeningHub(t);
const { page, problems } = await openBrowser(t);
page.setDefaultTimeout(20_000);
const space = await createSpace(hub, 'Home');

async function newPage(title: string, body: string): Promise<string> {
  const created = await hub.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title, body },
  });
  if (created.statusCode !== 201) throw new Error(`creating a page failed: ${created.body}`);
  return created.json().id;
}

t.test('a wiki link leads to its page, which lists its backlinks', async (t) => {
  const zfs = await newPage('ZFS', 'The pool.');
  const runbook = await newPage('Runbook', 'Check [[zfs|the pool]], then [[Nowhere]].');
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();

  await page.goto(`${hub.origin}/knowledge/page/${runbook}`);
  await page.getByRole('heading', { name: 'Runbook', exact: true }).waitFor();
  const link = page.locator('.markdown').getByRole('link', { name: 'the pool' });
  t.equal(await link.getAttribute('href'), `/knowledge/page/${zfs}`);
  t.equal(await page.locator('.markdown').getByRole('link', { name: 'Nowhere' }).count(), 0, 'no such page');
  t.match(await page.locator('.markdown').textContent(), 'then Nowhere.');

  await link.click();
  await page.getByRole('heading', { name: 'ZFS', exact: true }).waitFor();
  const linkedFrom = page.getByRole('navigation', { name: 'Linked from' });
  t.equal(
    await linkedFrom.getByRole('link', { name: 'Runbook' }).getAttribute('href'),
    `/knowledge/page/${runbook}`,
  );
  await checkAccessible(t, page, 'a page and its backlinks', '.page-view');
  t.same(problems, []);
});
