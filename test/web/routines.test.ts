// Settings → Routines in a real browser, with a fake OpenAI-compatible model on loopback and the in-process worker:
// a routine added from the form, edited, run now with its run's output shown, and deleted; the API sees each step.
import t from 'tap';
import { fakeModel } from '../domains/assistant/helpers.ts';
import { createAgent, ownerToken, testApp } from '../helpers/app.ts';
import { freePort } from '../helpers/process.ts';
import { checkAccessible, openBrowser, visitScreen } from './browser.ts';

t.setTimeout(300_000);
const model = await fakeModel(t, () => ({ text: 'Weekly digest: every service up.' }));
// The run's tools reach the hub over HTTP at HUB_URL: the port is chosen before the hub starts.
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const hub = { ...(await testApp(t, { worker: true, env: { ...model.env, HUB_URL: origin } })), origin };
await hub.app.listen({ port, host: '127.0.0.1' });
const { page, problems } = await openBrowser(t);
const agent = await createAgent(hub, { tier: 'suggest', name: 'digest-bot' });
const routines = async () => (await hub.asOwner({ method: 'GET', url: '/api/routines' })).json().items;

t.test('Settings adds, edits, runs and deletes a routine', async (t) => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await visitScreen(page, hub.origin, '/settings', 'Settings');

  const panel = page.getByRole('region', { name: 'Routines', exact: true });
  const form = panel.getByRole('form', { name: 'Routine' });
  await form.getByLabel('Name').fill('Weekly digest');
  await form.getByLabel('Agent').selectOption(agent.id);
  await form.getByLabel('Schedule').fill('0 8 * * 1');
  await form.getByLabel('Prompt').fill('Summarise the week.');
  await form.getByRole('button', { name: 'Add routine' }).click();
  await panel.getByRole('group', { name: /Weekly digest/ }).waitFor();
  t.match(await routines(), [
    {
      name: 'Weekly digest',
      agent_id: agent.id,
      schedule: '0 8 * * 1',
      prompt: 'Summarise the week.',
      enabled: true,
    },
  ]);
  await checkAccessible(t, page, 'the routines panel', 'section[aria-label="Routines"]');

  await panel.getByRole('button', { name: 'Edit Weekly digest' }).click();
  await form.getByLabel('Schedule').fill('30 7 * * 1');
  await form.getByLabel('Enabled').uncheck();
  await form.getByRole('button', { name: 'Save routine' }).click();
  await panel.getByText('every Monday at 07:30 (30 7 * * 1)').waitFor();
  t.match(await routines(), [{ schedule: '30 7 * * 1', enabled: false }]);

  await panel.getByRole('button', { name: 'Run Weekly digest now' }).click();
  const runs = panel.getByRole('region', { name: 'Runs of Weekly digest' });
  for (let attempt = 0; attempt < 100; attempt += 1) {
    await runs.getByRole('button', { name: 'Refresh runs' }).click();
    if (await runs.getByText('Weekly digest: every service up.').isVisible()) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await runs.getByText('Weekly digest: every service up.').waitFor({ timeout: 5_000 });
  await runs.getByText('succeeded').waitFor();

  await panel.getByRole('button', { name: 'Delete Weekly digest' }).click();
  await panel.getByRole('group', { name: /Weekly digest/ }).waitFor({ state: 'detached' });
  t.same(await routines(), []);
  t.same(problems, [], 'no console error or failed request');
});
