// An agent's chat turn in a real browser asks for a downstream MCP tool that needs approval: the chat shows the
// call as a draft waiting for approval, and approving it in Approvals makes the downstream call.
import t from 'tap';
import { fakeModel } from '../domains/assistant/helpers.ts';
import { ownerToken } from '../helpers/app.ts';
import { agentWithDownstream, startDownstream } from '../helpers/mcp-downstream.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

t.setTimeout(300_000);
const home = await startDownstream(t);
const model = await fakeModel(t, (round) =>
  round === 0
    ? { tool: 'home.set_light', arguments: { entity: 'light.porch', on: true } }
    : { text: 'The porch light waits for your approval.' },
);
const hub = await listeningHub(t, { env: model.env });
const { page, problems } = await openBrowser(t);

const { agent } = await agentWithDownstream(hub, home);
const settings = (await hub.asOwner({ method: 'GET', url: '/api/assistant/settings' })).json();
const chosen = await hub.asOwner({
  method: 'PUT',
  url: '/api/assistant/settings',
  payload: { ...settings, agent_id: agent.id },
});
if (chosen.statusCode !== 200) throw new Error(chosen.body);

t.test('a chat turn’s downstream call waits as a draft; approving it makes the call', async (t) => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();

  await visitScreen(page, hub.origin, '/assistant', 'Assistant');
  await page.getByLabel('Message').fill('turn on the porch light');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('The porch light waits for your approval.').waitFor();
  const draft = page.getByRole('article', { name: 'Waiting for approval: call home.set_light' });
  await draft.getByText('Waiting for your approval:').waitFor();
  await screenshot(page, 'assistant-downstream-draft');
  await checkAccessible(t, page, 'a chat with a waiting downstream call');
  t.same(home.calls, [], 'nothing is called before the owner approves');

  await draft.getByRole('link', { name: 'Open Approvals' }).click();
  await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
  const waiting = page.getByRole('region', { name: 'Actions waiting' });
  await waiting.getByText('home.set_light').waitFor();
  await waiting.getByText('light.porch').waitFor();
  await waiting.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('Action approved').waitFor();
  t.same(
    home.calls,
    [{ tool: 'set_light', args: { entity: 'light.porch', on: true } }],
    'approving made the downstream call once',
  );
  t.same(problems, [], 'no console error or failed request');
});
