// The hub as a gateway: two real MCP servers built with the SDK on loopback behind it, one open, one needing a
// bearer header, driven through the hub's own /api/mcp with the SDK's client.
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { createAgent, type TestAgent, type TestApp, testApp } from '../../helpers/app.ts';
import { startDownstream } from '../../helpers/mcp-downstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text?: string }[];
}

async function listening(ta: TestApp): Promise<URL> {
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as AddressInfo;
  return new URL(`http://127.0.0.1:${port}/api/mcp`);
}

async function connect(t: Teardown, url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}

async function toolNames(client: Client, prefix: string): Promise<string[]> {
  const { tools } = await client.listTools();
  return tools.map((tool) => tool.name).filter((name) => name.startsWith(prefix));
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

async function agentWith(ta: TestApp, tier: 'read' | 'suggest' | 'owner', capabilities: string[]) {
  const agent = await createAgent(ta, { tier });
  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/agents/${agent.id}`,
    payload: { capabilities },
  });
  if (patched.statusCode !== 200) throw new Error(patched.body);
  return agent;
}

t.test('downstream servers behind the hub', async (t) => {
  const ta = await testApp(t);
  const hubUrl = await listening(ta);
  const home = await startDownstream(t);
  const vault = await startDownstream(t, { bearer: 'vault-secret-token' });

  const homeSaved = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp-servers',
    payload: { name: 'home', url: home.url, tool_policy: { wipe: 'deny' } },
  });
  t.equal(homeSaved.statusCode, 201, homeSaved.body);
  t.match(homeSaved.json(), { name: 'home', enabled: true, tool_count: 4, last_error: null });
  t.ok(homeSaved.json().protocol_version, 'the protocol version was negotiated');

  const vaultSaved = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp-servers',
    payload: { name: 'vault', url: vault.url, headers: { Authorization: 'Bearer vault-secret-token' } },
  });
  t.equal(vaultSaved.statusCode, 201, vaultSaved.body);
  t.same(vaultSaved.json().headers, { Authorization: { set: true } }, 'headers are write-only');
  t.notMatch(vaultSaved.body, 'vault-secret-token');
  t.match(vaultSaved.json(), { enabled: true, tool_count: 4 });
  const [stored] = await ta.sql`select headers::text as headers from mcp_servers where name = 'vault'`;
  t.notMatch(stored.headers, 'vault-secret-token', 'the header is sealed at rest');

  const tools = await ta.asOwner({ method: 'GET', url: `/api/mcp-servers/${homeSaved.json().id}/tools` });
  t.same(
    Object.fromEntries(
      tools.json().items.map((tool: { name: string; policy: string }) => [tool.name, tool.policy]),
    ),
    { get_state: 'pass', set_light: 'approve', wipe: 'deny', wait: 'pass' },
    'readOnlyHint passes, anything else waits, the owner’s override wins',
  );
  t.equal(tools.json().items[0].listed_as, `home.${tools.json().items[0].name}`);

  const agent = await agentWith(ta, 'suggest', ['mcp:home', 'mcp:vault']);
  const client = await connect(t, hubUrl, agent.token);

  t.test('listing: scoped, deny hidden, schemas and annotations kept', async (t) => {
    t.same((await toolNames(client, 'home.')).sort(), ['home.get_state', 'home.set_light', 'home.wait']);
    const { tools } = await client.listTools();
    const getState = tools.find((tool) => tool.name === 'home.get_state');
    t.match(getState, {
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { entity: { type: 'string' } }, required: ['entity'] },
      outputSchema: { properties: { state: { type: 'string' } } },
    });
    t.ok(
      tools.some((tool) => tool.name === 'get_action_result'),
      'the hub’s own tools are still there',
    );

    const homeOnly = await agentWith(ta, 'suggest', ['mcp:home']);
    const other = await connect(t, hubUrl, homeOnly.token);
    t.same(await toolNames(other, 'vault.'), [], 'no vault tools without mcp:vault');
    await t.rejects(call(other, 'vault.get_state', { entity: 'x' }), /unknown tool/);
    t.equal(vault.calls.length, 0);

    const none = await agentWith(ta, 'suggest', []);
    t.same(await toolNames(await connect(t, hubUrl, none.token), 'home.'), [], 'nothing without a scope');
  });

  t.test('a pass call is forwarded with the downstream’s header and audited', async (t) => {
    const result = await call(client, 'vault.get_state', { entity: 'light.hall' });
    t.same(result.structuredContent, { entity: 'light.hall', state: 'on' }, 'structured content as sent');
    t.same(vault.calls.at(-1), { tool: 'get_state', args: { entity: 'light.hall' } });
    t.equal(vault.headers.at(-1)?.authorization, 'Bearer vault-secret-token');
    const audit = await ta.asOwner({ method: 'GET', url: '/api/audit?action=mcp_call' });
    t.match(audit.json().items[0], {
      actor: agent.id,
      entity_type: 'mcp_server',
      entity_id: vaultSaved.json().id,
      outcome: 'applied',
      detail: { server: 'vault', tool: 'get_state', outcome: 'ok', arguments_sha256: /^[0-9a-f]{64}$/ },
    });
    t.type(audit.json().items[0].detail.duration_ms, 'number');
  });

  t.test('an approval call waits, runs once on approval, and its result can be read', async (t) => {
    const result = await call(client, 'home.set_light', { entity: 'light.hall', on: true });
    t.notOk(result.isError);
    t.match(result.structuredContent, { status: 'pending', pending_action_id: String, server: 'home' });
    t.equal(home.calls.filter((c) => c.tool === 'set_light').length, 0, 'nothing called yet');
    const id = result.structuredContent?.pending_action_id as string;

    const pending = await ta.asOwner({ method: 'GET', url: '/api/actions/pending' });
    t.match(
      pending.json().items.find((item: { id: string }) => item.id === id),
      {
        action: 'mcp.call',
        agent_id: agent.id,
        params: { server: 'home', tool: 'set_light', arguments: { entity: 'light.hall', on: true } },
      },
    );

    const approvals = await Promise.all(
      Array.from({ length: 30 }, () => ta.asOwner({ method: 'POST', url: `/api/actions/${id}/approve` })),
    );
    const statuses = approvals.map((response) => response.statusCode).sort();
    t.same(statuses, [200, ...Array(29).fill(409)], 'one approval wins');
    t.equal(home.calls.filter((c) => c.tool === 'set_light').length, 1, 'called exactly once');
    const approved = approvals.find((response) => response.statusCode === 200)?.json();
    t.match(approved, { status: 'approved', result: { content: [{ text: 'light.hall is on' }] } });

    const read = await call(client, 'get_action_result', { id });
    t.match(read.structuredContent, {
      status: 'approved',
      result: { content: [{ text: 'light.hall is on' }] },
    });
  });

  t.test('a rejected call is never made', async (t) => {
    const result = await call(client, 'home.set_light', { entity: 'light.porch', on: false });
    const id = result.structuredContent?.pending_action_id as string;
    const rejected = await ta.asOwner({
      method: 'POST',
      url: `/api/actions/${id}/reject`,
      payload: { reason: 'not now' },
    });
    t.equal(rejected.statusCode, 200);
    t.notOk(
      home.calls.some((c) => c.args.entity === 'light.porch'),
      'never called',
    );
    const read = await call(client, 'get_action_result', { id });
    t.match(read.structuredContent, { status: 'rejected', reason: 'not now', result: null });
  });

  t.test('another agent cannot read the action’s result', async (t) => {
    const result = await call(client, 'home.set_light', { entity: 'light.attic', on: true });
    const other = await agentWith(ta, 'suggest', ['mcp:home']);
    const read = await call(await connect(t, hubUrl, other.token), 'get_action_result', {
      id: result.structuredContent?.pending_action_id,
    });
    t.ok(read.isError);
    t.match(read.content[0].text, /not found/);
  });

  t.test('a deny tool is refused and never called', async (t) => {
    await t.rejects(call(client, 'home.wipe'), /unknown tool: home\.wipe/);
    t.notOk(home.calls.some((c) => c.tool === 'wipe'));
  });

  t.test('owner-tier agents follow the same policy; read-tier agents cannot ask', async (t) => {
    const owner = await connect(t, hubUrl, (await agentWith(ta, 'owner', ['mcp:home'])).token);
    const result = await call(owner, 'home.set_light', { entity: 'light.kitchen', on: true });
    t.match(result.structuredContent, { status: 'pending' });
    t.notOk(home.calls.some((c) => c.args.entity === 'light.kitchen'));

    const reader = await connect(t, hubUrl, (await agentWith(ta, 'read', ['mcp:home'])).token);
    const refused = await call(reader, 'home.set_light', { entity: 'light.kitchen', on: true });
    t.ok(refused.isError);
    t.match(refused.content[0].text, /read-tier/);
    t.match((await call(reader, 'home.get_state', { entity: 'x' })).structuredContent, { state: 'on' });
  });

  t.test('the owner sets a tool to pass', async (t) => {
    const patched = await ta.asOwner({
      method: 'PATCH',
      url: `/api/mcp-servers/${homeSaved.json().id}`,
      payload: { tool_policy: { wipe: 'deny', set_light: 'pass' } },
    });
    t.equal(patched.statusCode, 200, patched.body);
    const result = await call(client, 'home.set_light', { entity: 'light.cellar', on: true });
    t.match(result.content[0].text, 'light.cellar is on');
  });

  t.test('nothing of the agent’s token reaches a downstream', async (t) => {
    const seen = JSON.stringify([...home.headers, ...vault.headers]);
    t.notMatch(seen, agent.token);
    t.notMatch(seen, agent.token.slice(0, 16));
  });
});

t.test('a downstream that is down, slow or too large answers a tool error in time', async (t) => {
  const ta = await testApp(t);
  const hubUrl = await listening(ta);
  const slow = await startDownstream(t, { waitMs: 60_000 });
  const flaky = await startDownstream(t);
  const saved = await Promise.all(
    [
      { name: 'slow', url: slow.url, timeout_ms: 500 },
      { name: 'flaky', url: flaky.url },
    ].map((payload) => ta.asOwner({ method: 'POST', url: '/api/mcp-servers', payload })),
  );
  t.same(
    saved.map((response) => response.statusCode),
    [201, 201],
  );
  const agent: TestAgent = await agentWith(ta, 'suggest', ['mcp:slow', 'mcp:flaky']);
  const client = await connect(t, hubUrl, agent.token);

  const slowResult = await call(client, 'slow.wait');
  t.ok(slowResult.isError);
  t.match(slowResult.content[0].text, 'slow did not answer within 500 ms');

  const flood = await call(client, 'flaky.wait', { bytes: 5 * 1024 * 1024 });
  t.ok(flood.isError, 'a result beyond the size bound is refused');
  t.match(flood.content[0].text, 'the response exceeds 4194304 bytes');
  t.match(
    (await call(client, 'flaky.wait', { bytes: 10 })).content[0].text,
    'xxxxxxxxxx',
    'a small one passes',
  );

  await flaky.stop();
  const downResult = await call(client, 'flaky.get_state', { entity: 'x' });
  t.ok(downResult.isError);
  t.match(downResult.content[0].text, /the call to flaky\.get_state failed: flaky: .*fetch failed/);
  const audit = await ta.asOwner({ method: 'GET', url: '/api/audit?action=mcp_call&outcome=failed' });
  t.equal(audit.json().total, 3, 'every failure is audited');

  const refreshed = await ta.asOwner({
    method: 'POST',
    url: `/api/mcp-servers/${saved[1].json().id}/refresh`,
  });
  t.match(refreshed.json(), { enabled: false, last_error: /flaky/ }, 'a refresh that fails disables it');
  t.same(await toolNames(client, 'flaky.'), [], 'a disabled server lists nothing');
});
