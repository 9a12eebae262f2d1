// The owner's text is never lost, in a real browser against a real hub: two tabs editing one page (the second save
// meets the first one's version and shows both texts with the difference; nothing is lost and either way out
// saves), a page's History panel restoring an older version, the Trash screen restoring a deleted page with its
// subpage and deleting another for good, and an agent's proposal that the owner overtook shown with both texts and
// approved anyway.
import type { Page } from 'playwright-core';
import t from 'tap';
import { createAgent, createSpace, ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

// Five screens driven in turn on a machine that may be busy: more than the default file time.
t.setTimeout(400_000);
const hub = await listeningHub(t);
// The refusals the screens answer: an edit against an older version, an approval of a change that went stale.
const { context, page, problems } = await openBrowser(t, {
  expected: [
    /HTTP 412: PATCH .*\/api\/pages\//,
    /HTTP 409: POST .*\/api\/pending-changes\/.*\/approve$/,
    /console: Failed to load resource: .* (412 \(Precondition Failed\)|409 \(Conflict\))$/,
  ],
});

async function newPage(space: string, title: string, body: string, parent?: string): Promise<string> {
  const created = await hub.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space, title, body, ...(parent ? { parent_id: parent } : {}) },
  });
  if (created.statusCode !== 201) throw new Error(`creating a page failed: ${created.body}`);
  return created.json().id;
}

async function bodyOf(id: string): Promise<string> {
  const [row] = await hub.sql<{ body: string }[]>`select body from pages where id = ${id}`;
  return row.body;
}

async function openPage(tab: Page, id: string, title: string) {
  await tab.goto(`${hub.origin}/knowledge/page/${id}`);
  await tab.getByRole('heading', { name: title, exact: true }).waitFor();
}

/** Saves the editor and waits for the answer to the PATCH. */
async function save(tab: Page): Promise<number> {
  const answered = tab.waitForResponse(
    (r) => r.url().includes('/api/pages/') && r.request().method() === 'PATCH',
  );
  await tab.getByRole('button', { name: 'Save', exact: true }).click();
  return (await answered).status();
}

page.setDefaultTimeout(20_000);
const space = await createSpace(hub, 'Home');

t.test('sign in', async () => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
});

t.test('two tabs edit one page: the second save shows both texts, nothing is lost', async (t) => {
  const id = await newPage(space.id, 'Plan', 'line one\nline two\n');
  const other = await context.newPage();
  t.teardown(() => other.close());
  await openPage(page, id, 'Plan');
  await openPage(other, id, 'Plan');
  await page.getByRole('button', { name: 'Edit' }).click();
  await other.getByRole('button', { name: 'Edit' }).click();

  await page.getByLabel('Markdown').fill('line one\nfrom the first tab\n');
  t.equal(await save(page), 200, 'the first save lands');
  await other.getByLabel('Markdown').fill('line one\nfrom the second tab\n');
  t.equal(await save(other), 412, 'the second one was made against the older version');

  const conflict = other.getByRole('region', { name: 'Edit conflict' });
  await conflict.waitFor();
  t.match(await conflict.getByRole('region', { name: 'Theirs' }).textContent(), /from the first tab/);
  t.match(await conflict.getByRole('region', { name: 'Yours' }).textContent(), /from the second tab/);
  const diff = conflict.getByRole('figure', { name: 'Theirs → yours' });
  t.match(await diff.locator('del').allTextContents(), [/from the first tab/], 'their line, marked removed');
  t.match(await diff.locator('ins').allTextContents(), [/from the second tab/], 'mine, marked added');
  t.equal(await bodyOf(id), 'line one\nfrom the first tab\n', 'the first save stays');
  await screenshot(other, 'edit-conflict');
  await checkAccessible(t, other, 'the edit conflict');

  await conflict.getByRole('button', { name: 'Keep editing mine' }).click();
  t.equal(
    await other.getByLabel('Markdown').inputValue(),
    'line one\nfrom the second tab\n',
    'my text is kept',
  );
  t.equal(await save(other), 200, 'saved against the newer version: it replaces it');
  await other.getByRole('button', { name: 'Edit' }).waitFor();
  t.equal(await bodyOf(id), 'line one\nfrom the second tab\n');
  const versions = await hub.sql<{ body: string }[]>`
    select body from page_versions where page_id = ${id} order by n`;
  t.same(
    versions.map((v) => v.body),
    ['line one\nline two\n', 'line one\nfrom the first tab\n', 'line one\nfrom the second tab\n'],
    'every text is kept in the history',
  );

  // The first tab still holds the first version's tag: its next edit meets the second tab's text.
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('Markdown').fill('line one\nsecond thoughts\n');
  t.equal(await save(page), 412);
  await page.getByRole('button', { name: 'Take theirs, drop mine' }).click();
  t.equal(await page.getByLabel('Markdown').inputValue(), 'line one\nfrom the second tab\n', 'their text');
  t.equal(await save(page), 200, 'and it saves against their version');
  t.equal(await bodyOf(id), 'line one\nfrom the second tab\n');
});

t.test('History: a version shows its text and difference, and is restored', async (t) => {
  const id = await newPage(space.id, 'Runbook', 'restart the router\n');
  await hub.asOwner({
    method: 'PATCH',
    url: `/api/pages/${id}`,
    payload: { title: 'Runbook v2', body: 'replace the router\n' },
  });
  await openPage(page, id, 'Runbook v2');
  await page.getByRole('button', { name: 'History' }).click();
  const history = page.getByRole('region', { name: 'History' });
  const first = history.getByRole('button', { name: /^Version 1 Owner/ });
  await first.waitFor();
  t.match(await history.getByRole('button', { name: /^Version 2/ }).textContent(), /current/);
  await first.click();
  const shown = history.getByRole('region', { name: 'Version 1' });
  t.match(await shown.locator('pre.version-text').textContent(), /restart the router/);
  const diff = shown.getByRole('figure', { name: 'Version 1 → current text' });
  t.match(await diff.locator('del').allTextContents(), [/# Runbook\n/, /restart the router/]);
  t.match(await diff.locator('ins').allTextContents(), [/# Runbook v2/, /replace the router/]);
  await screenshot(page, 'page-history');
  await checkAccessible(t, page, 'the History panel');

  await shown.getByRole('button', { name: 'Restore version 1' }).click();
  const question = page.getByRole('dialog', { name: /^Restore version 1\?/ });
  await question.getByRole('button', { name: 'Restore', exact: true }).click();
  await page.getByRole('heading', { name: 'Runbook', exact: true }).waitFor();
  t.match(
    await page.locator('.page-view .markdown').textContent(),
    /restart the router/,
    'the old text is back',
  );
  t.equal(await bodyOf(id), 'restart the router\n');
  await history.getByRole('button', { name: /^Version 3 .*restored from 1/ }).waitFor();
});

t.test('Trash: a deleted page comes back with its subpage; another is deleted for good', async (t) => {
  const garden = await createSpace(hub, 'Garden');
  const beds = await newPage(garden.id, 'Beds', 'raised beds');
  const tomatoes = await newPage(garden.id, 'Tomatoes', 'six plants', beds);
  const scratch = await newPage(garden.id, 'Scratch', 'nothing');
  await openPage(page, beds, 'Beds');
  await page.getByRole('button', { name: 'Delete page' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await page.waitForURL(`${hub.origin}/knowledge/space/${garden.id}`);
  t.equal((await hub.asOwner({ method: 'DELETE', url: `/api/pages/${scratch}` })).statusCode, 204);

  await visitScreen(page, hub.origin, '/trash', 'Trash');
  const row = (title: string) =>
    page.locator('tr', { has: page.getByRole('cell', { name: title, exact: true }) });
  await row('Beds').waitFor();
  t.match(
    await row('Beds').textContent(),
    /Page.*Beds.*1 page, 2 versions.*Owner/,
    'kind, what it holds, who',
  );
  await screenshot(page, 'trash');
  await checkAccessible(t, page, 'the Trash screen');

  await row('Beds').getByRole('button', { name: 'Restore: Beds' }).click();
  await row('Beds').waitFor({ state: 'detached' });
  await page.goto(`${hub.origin}/knowledge/space/${garden.id}`);
  const tree = page.getByRole('list', { name: 'Pages' });
  await tree.getByRole('link', { name: 'Tomatoes' }).waitFor();
  t.same(
    await tree.getByRole('link').allTextContents(),
    ['Beds', 'Tomatoes'],
    'the page and its subpage are back in the tree',
  );
  t.equal(await bodyOf(tomatoes), 'six plants');

  await visitScreen(page, hub.origin, '/trash', 'Trash');
  await row('Scratch').getByRole('button', { name: 'Delete for good: Scratch' }).click();
  const question = page.getByRole('dialog', { name: /^Delete "Scratch" for good\?/ });
  await question.getByRole('button', { name: 'Delete for good' }).click();
  await page.getByText('The trash is empty.').waitFor();
  const [kept] = await hub.sql<
    { n: number }[]
  >`select count(*)::int as n from trash where entity_id = ${scratch}`;
  t.equal(kept.n, 0, 'gone for good');
});

t.test("an agent's proposal shows its diff; once overtaken, both texts, and approve anyway", async (t) => {
  const agent = await createAgent(hub, { name: 'scribe', tier: 'suggest', space_id: space.id });
  const id = await newPage(space.id, 'Notes', 'line one\nline two\n');
  const proposed = await hub.asAgent(agent.token, {
    method: 'PATCH',
    url: `/api/pages/${id}`,
    payload: { body: 'line one\nagent line\n' },
  });
  t.equal(proposed.statusCode, 202);

  await visitScreen(page, hub.origin, '/approvals', 'Approvals');
  const card = page.locator(`[data-change-id="${proposed.json().pending_change_id}"]`);
  const pending = card.getByRole('figure', { name: 'Body: current → proposed' });
  await pending.waitFor();
  t.match(await pending.locator('del').allTextContents(), [/line two/]);
  t.match(await pending.locator('ins').allTextContents(), [/agent line/]);

  const owner = await hub.asOwner({
    method: 'PATCH',
    url: `/api/pages/${id}`,
    payload: { body: 'line one\nowner line\n' },
  });
  t.equal(owner.statusCode, 200);
  await card.getByRole('button', { name: 'Approve', exact: true }).click();
  const stale = card.getByRole('region', { name: 'Changed since proposed' });
  await stale.waitFor();
  t.match(await stale.getByRole('region', { name: 'Body now' }).textContent(), /owner line/);
  t.match(await stale.getByRole('region', { name: 'Body proposed' }).textContent(), /agent line/);
  const diff = stale.getByRole('figure', { name: 'Body: now → proposed' });
  t.match(await diff.locator('del').allTextContents(), [/owner line/]);
  t.match(await diff.locator('ins').allTextContents(), [/agent line/]);
  t.equal(await bodyOf(id), 'line one\nowner line\n', "the owner's text stays until they decide");
  await screenshot(page, 'stale-approval');
  await checkAccessible(t, page, 'a stale proposal');

  await card.getByRole('button', { name: 'Approve anyway' }).click();
  await card.getByText('applied').waitFor();
  t.equal(await bodyOf(id), 'line one\nagent line\n', 'forced through');
  const versions = await hub.asOwner({ method: 'GET', url: `/api/pages/${id}/versions` });
  t.match(versions.json().items[0], { author: { kind: 'approval', agent_id: agent.id } });
});

t.test('no console error and no failed request', async (t) => {
  t.same(problems, []);
});
