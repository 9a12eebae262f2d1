// The MCP gateway in a real browser: Settings lists a downstream server with its tools and policies, changes a
// tool's policy and connects another server (its bearer token write-only); Approvals shows a waiting downstream
// call as its server, tool and arguments, and approving it makes the call.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { ownerToken } from '../helpers/app.ts';
import { agentWithDownstream, startDownstream } from '../helpers/mcp-downstream.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

t.setTimeout(300_000);
const home = await startDownstream(t);
const vault = await startDownstream(t, { bearer: 'vault-secret-token' });
const hub = await listeningHub(t);
const { page, problems } = await openBrowser(t);

const { agent, serverId } = await agentWithDownstream(hub, home);
const client = new Client({ name: 'browser-test', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${hub.origin}/api/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${agent.token}` } },
  }),
);
t.teardown(() => client.close());
const pending = await client.callTool({
  name: 'home.set_light',
  arguments: { entity: 'light.hall', on: true },
});

t.test('Settings shows servers, tools and policies; Approvals makes a waiting call', async (t) => {
  t.match(pending.structuredContent, { status: 'pending' });
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await visitScreen(page, hub.origin, '/settings', 'Settings');
  const section = page.getByRole('region', { name: 'MCP servers' });
  await section.getByText(home.url).waitFor();
  await section.getByRole('button', { name: '4 tools' }).click();
  await section.getByText('home.set_light').waitFor();
  await section.getByLabel('Policy of wipe').selectOption('deny');
  await page.getByText('home.wipe: deny').waitFor();
  const stored = (await hub.asOwner({ method: 'GET', url: `/api/mcp-servers/${serverId}` })).json();
  t.same(stored.tool_policy, { wipe: 'deny' });

  const form = section.getByRole('form', { name: 'New MCP server' });
  await form.getByLabel('Name').fill('vault');
  await form.getByLabel('Streamable HTTP URL').fill(vault.url);
  await form.getByLabel('Bearer token (optional)').fill('vault-secret-token');
  await form.getByRole('button', { name: 'Connect' }).click();
  await page.getByText('vault: 4 tools').waitFor();
  t.equal(vault.headers.at(-1)?.authorization, 'Bearer vault-secret-token');
  await screenshot(page, 'settings-mcp-servers');
  await checkAccessible(t, page, 'MCP servers in Settings');

  await visitScreen(page, hub.origin, '/approvals', 'Approvals');
  const waiting = page.getByRole('region', { name: 'Actions waiting' });
  await waiting.getByText('home.set_light').waitFor();
  await waiting.getByText('light.hall').waitFor();
  await checkAccessible(t, page, 'a waiting downstream call');
  t.equal(home.calls.filter((call) => call.tool === 'set_light').length, 0, 'not called before approval');
  await waiting.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('Action approved').waitFor();
  t.same(
    home.calls.filter((call) => call.tool === 'set_light'),
    [{ tool: 'set_light', args: { entity: 'light.hall', on: true } }],
    'approving made the call once',
  );
  t.same(problems, [], 'no console error or failed request');
});
