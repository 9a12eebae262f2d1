// The web app's shell in a real browser against a real hub: links change the screen without reloading the page, a
// screen that throws while drawing shows an error panel whose retry draws it again, and every overlay is a modal
// dialog that takes the focus, closes on Escape and gives the focus back to the button that opened it.
import t from 'tap';
import { createSpace, ownerToken } from '../helpers/app.ts';
import { listeningHub, openBrowser } from './browser.ts';

const hub = await listeningHub(t);
const { page, problems } = await openBrowser(t);

// What runs in the page is written as text: this project's compiler knows no DOM.
/** The accessible name of the focused element and whether it sits in an open dialog. */
const focused = () =>
  page.evaluate<{ label: string; inDialog: boolean }>(`(() => {
    const element = document.activeElement;
    return {
      label: element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? '',
      inDialog: Boolean(element?.closest('dialog[open]')),
    };
  })()`);
/** The text of the focused element. */
const focusedText = () => page.evaluate<string>("document.activeElement?.textContent?.trim() ?? ''");

t.test('sign in', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

t.test('a plain click on a link changes the screen without loading the page again', async (t) => {
  await page.evaluate('window.sameDocument = true');
  await page.getByRole('link', { name: 'Services', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Services' }).waitFor();
  t.equal(new URL(page.url()).pathname, '/services');
  t.equal(await page.evaluate<boolean>('window.sameDocument'), true, 'no reload');
  t.equal(
    await page.getByRole('link', { name: 'Services', exact: true }).getAttribute('aria-current'),
    'page',
    'the sidebar marks the screen shown',
  );
  await page.goBack();
  await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
  t.equal(await page.evaluate<boolean>('window.sameDocument'), true, 'back: no reload');
});

t.test('a screen that throws shows an error panel; retry draws it again', async (t) => {
  // An answer the screen cannot draw (its list is missing) makes it throw while rendering.
  await page.route('**/api/captures?*', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: '{"items":null,"total":0}' }),
  );
  await page.getByRole('link', { name: 'Capture', exact: true }).click();
  const panel = page
    .getByRole('alert')
    .filter({ has: page.getByRole('heading', { name: 'This screen failed' }) });
  await panel.waitFor();
  t.ok(await page.getByRole('navigation', { name: 'Main' }).isVisible(), 'the navigation stays');
  await page.unroute('**/api/captures?*');
  await panel.getByRole('button', { name: 'Retry' }).click();
  await page.getByRole('heading', { level: 1, name: 'Capture' }).waitFor();
  await page.getByText('Nothing captured yet.').waitFor();
  t.equal(await panel.count(), 0, 'the panel is gone');

  // A failure stays on its screen: another screen draws as usual, and coming back draws this one afresh.
  await page.route('**/api/captures?*', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: '{"items":null,"total":0}' }),
  );
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await panel.waitFor();
  await page.unroute('**/api/captures?*');
  await page.getByRole('link', { name: 'Devices', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Devices' }).waitFor();
  t.equal(await panel.count(), 0, 'moving to another screen clears the panel');
});

t.test('an edit panel is a modal dialog: focus moves in, Escape closes it, focus returns', async (t) => {
  await page.getByRole('link', { name: 'Services', exact: true }).click();
  const add = page.getByRole('button', { name: 'Add service' });
  await add.click();
  const dialog = page.getByRole('dialog', { name: 'Service' });
  await dialog.waitFor();
  t.equal(await dialog.evaluate((element) => element.tagName), 'DIALOG', 'a native dialog');
  t.equal(await dialog.evaluate((element) => element.matches(':modal')), true, 'opened as a modal');
  t.same(await focused(), { label: '', inDialog: true }, 'the focus is in the dialog');
  t.equal(
    await page.evaluate<boolean>("document.activeElement === document.querySelector('dialog input')"),
    true,
    'on its first field',
  );
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  t.equal(await focusedText(), 'Add service', 'focus returns');
});

t.test('the search palette is a modal dialog that gives the focus back', async (t) => {
  const search = page.getByRole('button', { name: /^Search/ });
  await search.focus();
  await page.keyboard.press('Control+k');
  const dialog = page.getByRole('dialog', { name: 'Search' });
  await dialog.waitFor();
  await page.getByLabel('Search everything').waitFor();
  t.equal(await dialog.evaluate((element) => element.matches('dialog:modal')), true);
  // The palette is loaded on first use and focuses its field once it is shown, a frame after it appears.
  await page.waitForFunction(() => {
    const { document } = globalThis as unknown as {
      document: { activeElement: { getAttribute(name: string): string | null } | null };
    };
    return document.activeElement?.getAttribute('aria-label') === 'Search everything';
  });
  t.same(await focused(), { label: 'Search everything', inDialog: true }, 'the focus is in the search field');
  // Escape closes the palette at once, even from the search field with text in it (which would clear the text).
  await page.getByLabel('Search everything').fill('anything');
  await page.keyboard.press('Escape');
  t.equal(await dialog.count(), 0, 'closed by one Escape');
  t.match(await focusedText(), /^Search/, 'focus returns');
});

t.test('deleting a page asks first, in a dialog', async (t) => {
  const space = await createSpace(hub, 'Garage');
  const created = await hub.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'Tyre sizes', body: '205/55 R16' },
  });
  t.equal(created.statusCode, 201);
  await page.goto(`${hub.origin}/knowledge/page/${created.json().id}`);
  await page.getByRole('heading', { name: 'Tyre sizes' }).waitFor();
  const remove = page.getByRole('button', { name: 'Delete page' });
  await remove.click();
  const question = page.getByRole('dialog', { name: 'Delete "Tyre sizes" and its subpages?' });
  await question.waitFor();
  t.same(await focused(), { label: 'Cancel', inDialog: true }, 'the focus starts on Cancel');
  await page.keyboard.press('Escape');
  await question.waitFor({ state: 'detached' });
  t.equal(
    await page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label')"),
    'Delete page',
    'focus returns to the delete button',
  );
  t.equal((await hub.sql`select 1 from pages where id = ${created.json().id}`).length, 1, 'Escape keeps it');

  await remove.click();
  await question.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.waitForURL(`${hub.origin}/knowledge/space/${space.id}`);
  t.equal((await hub.sql`select 1 from pages where id = ${created.json().id}`).length, 0, 'deleted');
});

t.test('no console error and no failed request', async (t) => {
  t.same(problems, []);
});
