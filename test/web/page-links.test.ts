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
  const create = page.locator('.markdown').getByRole('link', { name: 'Nowhere' });
  t.equal(await create.getAttribute('title'), 'Create this page', 'a page of no such title: a create link');
  t.match(await page.locator('.markdown').textContent(), 'then Nowhere.');

  await link.click();
  await page.getByRole('heading', { name: 'ZFS', exact: true }).waitFor();
  const linkedFrom = page.getByRole('navigation', { name: 'Linked from' });
  t.equal(
    await linkedFrom.getByRole('link', { name: 'Runbook' }).getAttribute('href'),
    `/knowledge/page/${runbook}`,
  );
  await checkAccessible(t, page, 'a page and its backlinks', '.page-view');

  // The create link: the New page field holds the title; Enter makes the page, which the link then leads to.
  await page.goto(`${hub.origin}/knowledge/page/${runbook}`);
  await create.click();
  const field = page.getByLabel('New page');
  for (let tries = 0; tries < 100 && (await field.inputValue()) !== 'Nowhere'; tries++)
    await page.waitForTimeout(50);
  t.equal(await field.inputValue(), 'Nowhere', 'the field holds the title');
  await field.press('Enter');
  await page.getByRole('heading', { name: 'Nowhere', exact: true }).waitFor();
  const [made] = await hub.sql<{ id: string }[]>`select id from pages where title = 'Nowhere'`;
  t.ok(made, 'the page is made');
  await page.goto(`${hub.origin}/knowledge/page/${runbook}`);
  await page.getByRole('heading', { name: 'Runbook', exact: true }).waitFor();
  // The links are drawn again once the space's page list is in.
  await page
    .locator('.markdown')
    .locator(`a[href="/knowledge/page/${made?.id}"]`, { hasText: 'Nowhere' })
    .waitFor();
  t.pass('the link now leads to the page');
  t.same(problems, []);
});
