// The tool protocol, driven by the SDK's own client over HTTP against a listening app.
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { createAgent, createSpace, ownerToken, type TestApp, testApp } from '../helpers/app.ts';
import { type Json, owned } from '../helpers/entities.ts';

type Asserts = Pick<typeof t, 'same'>;

interface Teardown {
  teardown(fn: () => unknown): void;
}

async function listening(ta: TestApp): Promise<URL> {
  await ta.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = ta.app.server.address() as AddressInfo;
  return new URL(`http://127.0.0.1:${port}/api/mcp`);
}

async function connect(t: Teardown, url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'hub-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  t.teardown(() => client.close());
  // Listing the tools makes the client check every structured result against the tool's output schema.
  await client.listTools();
  return client;
}

interface ToolResult {
  isError?: boolean;
  structuredContent?: Json;
  content: { type: string; text?: string }[];
}

/** Calls a tool; checks that a success carries the same JSON as structured content and as text. */
async function call(t: Asserts, client: Client, name: string, args: Json = {}): Promise<ToolResult> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  if (!result.isError) {
    t.same(JSON.parse(result.content[0].text ?? ''), result.structuredContent, `${name}: text copy`);
  }
  return result;
}

/** An array of a result's structured content (empty when it is missing). */
function list(result: ToolResult, key: string): unknown[] {
  const value = result.structuredContent?.[key];
  return Array.isArray(value) ? value : [];
}

function errorText(result: ToolResult): string {
  return result.isError ? (result.content[0].text ?? '') : `not an error: ${JSON.stringify(result)}`;
}

const expectedTools = [
  'create_page',
  'create_resource',
  'create_task',
  'get_action_result',
  'get_context',
  'get_page',
  'get_project',
  'get_ref',
  'get_source_doc',
  'list_apps',
  'list_devices',
  'list_feeds',
  'list_my_pending_changes',
  'list_pages',
  'list_tasks',
  'move_page',
  'network_audit',
  'propose_action',
  'search',
  'service_health',
  'timeline',
  'update_page',
  'update_resource',
  'update_task',
  'upsert_ref',
];

t.test('tools are listed with input and output schemas; the transport is POST only', async (t) => {
  const ta = await testApp(t);
  const url = await listening(ta);
  const agent = await createAgent(ta, { tier: 'read' });
  const client = await connect(t, url, agent.token);

  const { tools } = await client.listTools();
  t.same(tools.map((tool) => tool.name).sort(), expectedTools);
  for (const tool of tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name} input schema`);
    t.equal(tool.outputSchema?.type, 'object', `${tool.name} output schema`);
    t.ok(tool.description, `${tool.name} is described`);
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const createPage = byName.get('create_page');
  t.same(createPage?.inputSchema.required, ['title'], 'the REST body schema: only the title is required');
  t.equal(createPage?.inputSchema.additionalProperties, false);
  t.same(Object.keys(createPage?.inputSchema.properties ?? {}).sort(), [
    'body',
    'parent_id',
    'position',
    'space_id',
    'tags',
    'title',
  ]);
  const listPages = byName.get('list_pages');
  t.same(listPages?.inputSchema.required ?? [], [], 'limit and offset have defaults');
  t.match(listPages?.inputSchema.properties, { limit: { default: 50, maximum: 100 } });
  t.notOk(JSON.stringify(tools).includes('"$ref"'), 'every schema stands alone');
  t.match(byName.get('get_page')?.annotations, { readOnlyHint: true });
  t.match(byName.get('update_page')?.annotations, { readOnlyHint: false });

  const get = await ta.asAgent(agent.token, { method: 'GET', url: '/api/mcp' });
  t.equal(get.statusCode, 405);
  t.equal(get.headers.allow, 'POST');
  t.equal((await ta.asAgent(agent.token, { method: 'DELETE', url: '/api/mcp' })).statusCode, 405);
  const anonymous = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.equal(anonymous.status, 401);
  const stranger = new Client({ name: 'stranger', version: '1.0.0' });
  await t.rejects(
    stranger.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { authorization: 'Bearer hub_agent_not-a-real-token' } },
      }),
    ),
    'a bad token cannot connect',
  );
});

t.test('reads stay in the agent scope; outside it the tools answer errors, not data', async (t) => {
  const ta = await testApp(t);
  const url = await listening(ta);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const homePage = await owned(ta, '/api/pages', {
    space_id: home.id,
    title: 'Boiler manual',
    body: 'pressure',
  });
  const workPage = await owned(ta, '/api/pages', {
    space_id: work.id,
    title: 'Boiler contract',
    body: 'pressure',
  });
  const project = await owned(ta, '/api/projects', { space_id: home.id, name: 'Heating' });
  const task = await owned(ta, '/api/tasks', { project_id: project.id, title: 'Bleed radiators' });
  const ref = await owned(ta, '/api/refs', { space_id: home.id, source: 'web', external_id: 'valve' });
  await ta.asOwner({ method: 'POST', url: `/api/projects/${project.id}/refs`, payload: { ref_id: ref.id } });
  const doc = await owned(ta, '/api/source-docs', { space_id: home.id, title: 'Invoice', content: 'paid' });
  const workProject = await owned(ta, '/api/projects', { space_id: work.id, name: 'Office' });
  const nas = await owned(ta, '/api/resources', {
    space_id: home.id,
    name: 'nas',
    monitoring: { secret: 'x' },
    metadata: { serial: 'y' },
  });
  const backup = await owned(ta, '/api/resources', { space_id: home.id, name: 'backup' });
  await owned(ta, '/api/resources', { space_id: work.id, name: 'office-printer' });
  await ta.asOwner({
    method: 'POST',
    url: `/api/resources/${backup.id}/dependencies`,
    payload: { depends_on_id: nas.id },
  });
  const old = new Date(Date.now() - 30 * 86_400_000).toISOString();
  await owned(ta, '/api/network-hosts', {
    hostname: 'router',
    ip: '10.0.0.1',
    role: 'gateway',
    os: 'openwrt',
    last_seen_at: new Date().toISOString(),
  });
  await owned(ta, '/api/network-hosts', {
    hostname: 'old-pi',
    ip: '10.0.0.9',
    role: 'sensor',
    os: 'raspbian',
    last_seen_at: old,
  });
  await owned(ta, '/api/network-hosts', { hostname: 'twin', ip: '10.0.0.9' });

  const reader = await createAgent(ta, { tier: 'read', space_id: home.id });
  const client = await connect(t, url, reader.token);

  const search = await call(t, client, 'search', { q: 'pressure' });
  t.match(search.structuredContent, { total: 1, limit: 50, offset: 0 });
  t.match(search.structuredContent?.items, [{ kind: 'pages', id: homePage.id, space_id: home.id }]);

  const pages = await call(t, client, 'list_pages');
  t.same(
    (list(pages, 'items') as Json[]).map((page) => page.id),
    [homePage.id],
  );
  const otherSpace = await call(t, client, 'list_pages', { space_id: work.id });
  t.match(errorText(otherSpace), /^404 Not Found: space not found/);
  t.notOk(otherSpace.structuredContent, 'an error carries no data');

  const page = await call(t, client, 'get_page', { id: homePage.id });
  t.match(page.structuredContent, { id: homePage.id, title: 'Boiler manual', body: 'pressure' });
  t.match(page.structuredContent?.created_at, /^\d{4}-\d\d-\d\dT/);
  const foreign = await call(t, client, 'get_page', { id: workPage.id });
  t.match(errorText(foreign), /^404 Not Found: page not found/);
  t.notOk(foreign.content[0].text?.includes('Boiler contract'), 'nothing of the page leaks');
  const absent = await call(t, client, 'get_page', { id: '00000000-0000-4000-8000-000000000000' });
  t.equal(errorText(absent), '404 Not Found: page not found');

  const withLinks = await call(t, client, 'get_project', { id: project.id });
  t.match(withLinks.structuredContent, {
    project: { id: project.id, name: 'Heating' },
    tasks: [{ id: task.id, title: 'Bleed radiators' }],
    refs: [{ id: ref.id }],
  });
  t.match(errorText(await call(t, client, 'get_project', { id: workProject.id })), /^404/);

  const tasks = await call(t, client, 'list_tasks', { project_id: project.id });
  t.match(tasks.structuredContent, { total: 1, items: [{ id: task.id }] });
  t.match((await call(t, client, 'get_ref', { id: ref.id })).structuredContent, { source: 'web' });
  t.match((await call(t, client, 'get_source_doc', { id: doc.id })).structuredContent, { content: 'paid' });

  const context = await call(t, client, 'get_context');
  t.equal(context.structuredContent?.space_id, home.id);
  const resources = list(context, 'resources') as Json[];
  t.same(
    resources.map((resource) => resource.name),
    ['backup', 'nas'],
  );
  t.same(resources[0].depends_on, [nas.id], 'dependencies come along');
  for (const resource of resources) {
    t.notOk('monitoring' in resource || 'metadata' in resource, 'allow-listed columns only');
  }
  t.notOk(JSON.stringify(context).includes('secret'));
  t.match(errorText(await call(t, client, 'get_context', { space_id: work.id })), /^404/);

  const audit = await call(t, client, 'network_audit');
  t.equal((list(audit, 'hosts') as Json[]).length, 3);
  const findings = list(audit, 'findings') as { kind: string; message: string }[];
  t.same(findings.map((finding) => finding.kind).sort(), [
    'duplicate_ip',
    'missing_os',
    'missing_role',
    'never_seen',
    'not_seen_recently',
  ]);
  t.match(
    findings.find((finding) => finding.kind === 'duplicate_ip')?.message,
    /10\.0\.0\.9 .* old-pi, twin/,
  );
  t.match(
    findings.find((finding) => finding.kind === 'not_seen_recently')?.message,
    /old-pi: not seen for 30 days/,
  );
  const lenient = await call(t, client, 'network_audit', { stale_after_days: 60 });
  t.notOk((list(lenient, 'findings') as { kind: string }[]).some((f) => f.kind === 'not_seen_recently'));

  // The owner may use the protocol too, and reaches every space.
  const owner = await connect(t, url, ownerToken);
  const ownerPage = await call(t, owner, 'get_page', { id: workPage.id });
  t.equal(ownerPage.structuredContent?.title, 'Boiler contract');
  const ownerContext = await call(t, owner, 'get_context');
  t.equal((list(ownerContext, 'resources') as Json[]).length, 3);
});

t.test('writes follow the tier: read refused, suggest pending, owner tier written and audited', async (t) => {
  const ta = await testApp(t);
  const url = await listening(ta);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const project = await owned(ta, '/api/projects', { space_id: home.id, name: 'Garden' });
  const workPage = await owned(ta, '/api/pages', { space_id: work.id, title: 'Work page' });
  const reader = await connect(t, url, (await createAgent(ta, { tier: 'read', space_id: home.id })).token);
  const suggestAgent = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const suggester = await connect(t, url, suggestAgent.token);
  const ownerAgent = await createAgent(ta, { tier: 'owner', space_id: home.id });
  const writer = await connect(t, url, ownerAgent.token);

  const refused = await call(t, reader, 'create_page', { title: 'Nope' });
  t.equal(errorText(refused), '403 Forbidden: read-tier agents cannot write');

  const proposed = await call(t, suggester, 'create_page', { title: 'Seed plan' });
  t.same(Object.keys(proposed.structuredContent ?? {}).sort(), ['pending_change_id', 'status']);
  t.equal(proposed.structuredContent?.status, 'pending');
  const [pagesBefore] = await ta.sql`select count(*)::int as n from pages`;
  t.equal(pagesBefore.n, 1, 'nothing written yet');
  const upserted = await call(t, suggester, 'upsert_ref', { source: 'seeds', external_id: 'tomato' });
  t.equal(upserted.structuredContent?.status, 'pending');
  const outOfScope = await call(t, suggester, 'update_page', { id: workPage.id, title: 'Mine' });
  t.match(errorText(outOfScope), /^404 Not Found: page not found/);

  const mine = await call(t, suggester, 'list_my_pending_changes');
  t.match(mine.structuredContent, { total: 2, limit: 50, offset: 0 });
  t.match(mine.structuredContent?.items, [
    { entity_type: 'ref', action: 'upsert', status: 'pending', agent_id: suggestAgent.id },
    {
      id: proposed.structuredContent?.pending_change_id,
      entity_type: 'page',
      action: 'create',
      space_id: home.id,
      payload: { title: 'Seed plan', space_id: home.id },
    },
  ]);
  t.equal((await call(t, writer, 'list_my_pending_changes')).structuredContent?.total, 0, 'only its own');
  const approved = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${proposed.structuredContent?.pending_change_id}/approve`,
  });
  t.equal(approved.statusCode, 200);
  const applied = await call(t, suggester, 'list_my_pending_changes', { status: 'applied' });
  t.match(applied.structuredContent, {
    total: 1,
    items: [{ result_entity_id: approved.json().result_entity_id }],
  });

  const page = await call(t, writer, 'create_page', { title: 'Direct' });
  t.match(page.structuredContent, { title: 'Direct', space_id: home.id, position: 1 });
  const pageId = page.structuredContent?.id as string;
  const edited = await call(t, writer, 'update_page', { id: pageId, body: 'text' });
  t.match(edited.structuredContent, { id: pageId, body: 'text' });
  const moved = await call(t, writer, 'move_page', { id: pageId, position: 0 });
  t.equal(moved.structuredContent?.position, 0);
  const child = await call(t, writer, 'create_page', { title: 'Child' });
  const nested = await call(t, writer, 'move_page', {
    id: child.structuredContent?.id as string,
    parent_id: pageId,
  });
  t.equal(nested.structuredContent?.parent_id, pageId);
  const task = await call(t, writer, 'create_task', { project_id: project.id, title: 'Sow' });
  t.match(task.structuredContent, { title: 'Sow', status: 'todo', space_id: home.id });
  const done = await call(t, writer, 'update_task', {
    id: task.structuredContent?.id as string,
    status: 'done',
  });
  t.equal(done.structuredContent?.status, 'done');
  const ref = await call(t, writer, 'upsert_ref', { source: 'seeds', external_id: 'basil', title: 'Basil' });
  t.match(ref.structuredContent, { source: 'seeds', external_id: 'basil', title: 'Basil' });
  const resource = await call(t, writer, 'create_resource', { name: 'pump', monitoring: { url: 'x' } });
  t.match(resource.structuredContent, { name: 'pump', depends_on: [] });
  t.notOk('monitoring' in (resource.structuredContent ?? {}), 'agents get the allow-listed columns');
  const resourceId = resource.structuredContent?.id as string;
  const changed = await call(t, writer, 'update_resource', { id: resourceId, notes: 'garden shed' });
  t.equal(changed.structuredContent?.notes, 'garden shed');
  const [stored] = await ta.sql`select monitoring from resources where id = ${resourceId}`;
  t.same(stored.monitoring, { url: 'x' }, 'written in full');
  t.match(errorText(await call(t, writer, 'create_page', { space_id: work.id, title: 'x' })), /^404/);

  const audit = await ta.sql<{ actor: string; action: string; entity_type: string; detail: Json }[]>`
    select actor, action, entity_type, detail from audit_log where action = 'apply_direct' order by created_at, id`;
  t.same(
    audit.map((entry) => `${entry.entity_type}:${entry.detail.entity_action}`),
    [
      'page:create',
      'page:update',
      'page:update',
      'page:create',
      'page:update',
      'task:create',
      'task:update',
      'ref:upsert',
      'resource:create',
      'resource:update',
    ],
    'every direct write of the owner-tier agent is audited, and only those',
  );
  t.ok(audit.every((entry) => entry.actor === ownerAgent.id));

  const owner = await connect(t, url, ownerToken);
  const ownerPage = await call(t, owner, 'create_page', { space_id: work.id, title: 'By the owner' });
  t.equal(ownerPage.structuredContent?.space_id, work.id);
  const ownerResource = await call(t, owner, 'create_resource', {
    space_id: work.id,
    name: 'x',
    metadata: { a: 1 },
  });
  t.same(ownerResource.structuredContent?.metadata, { a: 1 }, 'the owner sees everything');
  t.match(
    errorText(await call(t, owner, 'list_my_pending_changes')),
    /^400 Bad Request: only agents propose/,
  );
});

t.test('bad arguments come back as tool errors with a clear message', async (t) => {
  const ta = await testApp(t);
  const url = await listening(ta);
  const home = await createSpace(ta, 'Home');
  const client = await connect(t, url, (await createAgent(ta, { tier: 'owner', space_id: home.id })).token);

  const cases: [string, Json, RegExp][] = [
    ['create_page', {}, /^400 Bad Request: invalid arguments for create_page: .*title/],
    ['create_page', { title: '   ' }, /invalid arguments for create_page: \/title/],
    ['create_page', { title: 'x', colour: 'red' }, /invalid arguments for create_page/],
    ['get_page', { id: 'not-a-uuid' }, /invalid arguments for get_page: \/id/],
    ['list_pages', { limit: 1000 }, /invalid arguments for list_pages: \/limit/],
    ['list_pages', { colour: 'red' }, /invalid arguments for list_pages/],
    ['update_page', { id: '00000000-0000-4000-8000-000000000000' }, /invalid arguments for update_page/],
    ['search', {}, /invalid arguments for search: .*q/],
    ['network_audit', { stale_after_days: 0 }, /invalid arguments for network_audit/],
  ];
  for (const [name, args, message] of cases) {
    const result = await call(t, client, name, args);
    t.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
    t.match(errorText(result), message);
  }
  t.match(
    errorText(
      await call(t, client, 'update_page', { id: '00000000-0000-4000-8000-000000000000', title: 'x' }),
    ),
    '404 Not Found: page not found',
  );
  await t.rejects(client.callTool({ name: 'drop_tables', arguments: {} }), /unknown tool: drop_tables/);
  const [pages] = await ta.sql`select count(*)::int as n from pages`;
  t.equal(pages.n, 0);
});

t.test('the per-agent rate limit reaches the protocol', async (t) => {
  const ta = await testApp(t, { env: { AGENT_RATE_LIMIT: '6' } });
  const url = await listening(ta);
  const client = await connect(t, url, (await createAgent(ta, { tier: 'read' })).token);
  t.notOk((await call(t, client, 'network_audit')).isError, 'within the limit');
  let limited: unknown = null;
  for (let i = 0; i < 6 && limited === null; i++) {
    await client.callTool({ name: 'network_audit', arguments: {} }).catch((error: unknown) => {
      limited = error;
    });
  }
  t.match(String(limited), /429/, 'the client sees HTTP 429');
  const owner = await connect(t, url, ownerToken);
  for (let i = 0; i < 8; i++) {
    t.notOk((await call(t, owner, 'network_audit')).isError, `owner call ${i + 1} is not limited`);
  }
});
