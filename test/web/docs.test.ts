// The API documentation page (/api/docs) in a real browser: the rendered document lists the operations, and an
// opened operation shows its responses with the shared error responses and entity schemas resolved from the
// document's components. The time it took is reported, not asserted (a test asserts no timing).
import t from 'tap';
import { listeningHub, openBrowser, screenshot } from './browser.ts';

// swagger-ui reads the whole document in the page before it shows anything: on a busy machine that alone takes a
// while, so this file gets more time than the default.
t.setTimeout(300_000);
const hub = await listeningHub(t);
// swagger-ui sets a few inline styles, which the docs' CSP (style-src 'self' https:) refuses: nothing is missing.
const { page, problems } = await openBrowser(t, { expected: [/Applying inline style violates/] });

t.test('the docs page renders operations and their shared responses', async (t) => {
  const started = performance.now();
  await page.goto(`${hub.origin}/api/docs`);
  const operation = page.locator('#operations-spaces-get_api_spaces__id_');
  await operation.waitFor({ timeout: 180_000 });
  t.comment(`operations shown after ${Math.round(performance.now() - started)} ms`);

  await operation.locator('.opblock-summary').click();
  const responses = operation.locator('.responses-table').first();
  await responses.waitFor({ timeout: 180_000 });
  const row = (status: number) => responses.locator(`tr.response[data-code="${status}"]`);
  t.match(
    await row(503).locator('.response-col_description').textContent(),
    /database is down/,
    'a shared error response, with its description',
  );
  t.match(
    await row(503).textContent(),
    /statusCode[\s\S]*code[\s\S]*error[\s\S]*message/,
    'and its body, the error schema from components',
  );
  t.match(await row(200).textContent(), /created_at/, 'an entity from components');
  await screenshot(page, 'api-docs');
  t.same(problems, [], 'no console error or failed request');
});
