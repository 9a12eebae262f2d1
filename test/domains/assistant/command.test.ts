// Turns through the command runner, with a real program speaking Claude Code's stream-json and the real MCP client.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { createAgent, createSpace, ownerToken, testApp } from '../../helpers/app.ts';
import { processAlive, repoRoot } from '../../helpers/process.ts';
import { listening, turn } from './helpers.ts';

const fixture = path.join(repoRoot, 'test', 'fixtures', 'assistant-program.ts');
const webhookSecret = 'webhook-secret-that-must-not-leak-0001';

async function setup(
  t: { teardown(fn: () => unknown): void },
  mode: string,
  env: Record<string, string> = {},
) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'assistant-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const ta = await testApp(t, {
    env: {
      ASSISTANT_RUNNER: 'command',
      ASSISTANT_COMMAND: `"${process.execPath}" "${fixture}" ${mode} "${dir}"`,
      WEBHOOK_SECRET: webhookSecret,
      ...env,
    },
  });
  return { ta, dir, base: await listening(ta) };
}

async function pidOf(dir: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const text = await readFile(path.join(dir, 'pid'), 'utf8').catch(() => '');
    if (text) return Number(text);
    await sleep(25);
  }
  throw new Error('the program never started');
}

/** Starts a turn over HTTP and reads its stream until the program's first output, leaving the stream open. */
async function startTurn(base: string, message: string) {
  const controller = new AbortController();
  const response = await fetch(`${base}/api/assistant/turn`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message, view: null }),
    signal: controller.signal,
  });
  const reader = response.status === 200 ? response.body?.getReader() : undefined;
  let seen = '';
  while (reader && !seen.includes('event: message')) {
    const chunk = await reader.read();
    if (chunk.done) break;
    seen += new TextDecoder().decode(chunk.value);
  }
  return { status: response.status, controller, seen };
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && processAlive(pid); i++) await sleep(25);
  return !processAlive(pid);
}

t.test('a turn streams the program’s text, tools and draft; the secrets never reach it', async (t) => {
  process.env.HUB_TEST_PARENT_SECRET = ownerToken;
  t.teardown(() => {
    delete process.env.HUB_TEST_PARENT_SECRET;
  });
  const { ta, dir, base } = await setup(t, 'normal');
  const space = await createSpace(ta, 'Home');
  await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'Zigbee coordinator', body: 'The stick sits on USB 2.' },
  });

  const result = await turn(base, '/api/assistant/turn', {
    message: 'Note how I pair Zigbee',
    view: { screen: 'dashboard' },
  });
  t.equal(result.status, 200);
  t.match(result.headers.get('content-type'), /^text\/event-stream/);
  t.equal(result.headers.get('cache-control'), 'no-cache');
  t.equal(result.headers.get('x-accel-buffering'), 'no');
  const names = result.events.map((event) => event.event);
  t.same(names, [
    'message',
    'tool_call',
    'tool_result',
    'tool_call',
    'tool_result',
    'draft',
    'message',
    'usage',
    'done',
  ]);
  t.same(
    result.events.map((event) => event.id),
    result.events.map((_, i) => i + 1),
    'event ids in order',
  );
  const [first, search, searched, write, written, draft, last, usage] = result.events.map(
    (event) => event.data,
  );
  t.same(first, { text: 'Let me look.' });
  t.match(search, { id: 'toolu_01', name: 'mcp__hub__search', arguments: { q: 'zigbee' } });
  t.match(searched, { id: 'toolu_01', is_error: false, content: /Zigbee coordinator/ });
  t.match(write, { id: 'toolu_02', name: 'mcp__hub__create_page' });
  t.match(written, { id: 'toolu_02', is_error: false });
  t.same(last, { text: 'I drafted a page for you.' });
  t.match(usage, { model: 'claude-test-1', input_tokens: 1500, output_tokens: 85, latency_ms: Number });

  // The draft names the real pending change the program's write became (the built-in assistant is suggest tier).
  const [change] = await ta.sql<
    { id: string; status: string; entity_type: string; action: string; name: string }[]
  >`
    select p.id, p.status, p.entity_type, p.action, a.name from pending_changes p join agents a on a.id = p.agent_id`;
  t.same(draft, {
    pending_change_id: change.id,
    action: 'create',
    entity_type: 'page',
    summary: 'create page: Zigbee pairing notes',
  });
  t.match(change, { status: 'pending', name: 'assistant' });

  // The program saw the persona, the view and the message on standard input, and nothing secret in its environment.
  const prompt = await readFile(path.join(dir, 'prompt.txt'), 'utf8');
  t.match(prompt, /owner’s assistant/);
  t.match(prompt, /"screen":"dashboard"/);
  t.match(prompt, /Note how I pair Zigbee/);
  const env = JSON.parse(await readFile(path.join(dir, 'env.json'), 'utf8')) as Record<string, string>;
  const allowed = ['PATH', 'HOME', 'LANG', 'TZ', 'HUB_MCP_URL', 'HUB_AGENT_TOKEN'];
  // The test runner's process tracking wraps spawn inside this test process and adds its own variables.
  const runners = (name: string) => name.startsWith('_TAPJS_PROCESSINFO_') || name === 'NODE_OPTIONS';
  t.same(
    Object.keys(env).filter((name) => !allowed.includes(name) && !runners(name)),
    [],
    'only the allow-listed variables',
  );
  const dumped = JSON.stringify(env);
  for (const secret of [ownerToken, webhookSecret, ta.db.url, new URL(ta.db.url).password]) {
    t.notOk(dumped.includes(secret), 'no secret reached the program');
  }
  t.match(env.HUB_MCP_URL, `${base}/api/mcp`);

  // The turn token is dead once the turn is over.
  const after = await fetch(`${base}/api/pages`, {
    headers: { authorization: `Bearer ${env.HUB_AGENT_TOKEN}` },
  });
  t.equal(after.status, 401, 'the turn token is refused after the turn');

  // Both messages are kept and searchable; the usage is recorded.
  const history = await ta.asOwner({ method: 'GET', url: '/api/assistant/history' });
  t.match(history.json(), {
    agent: { name: 'assistant' },
    has_more: false,
    items: [
      { role: 'user', content: 'Note how I pair Zigbee' },
      {
        role: 'assistant',
        content: 'Let me look.I drafted a page for you.',
        metadata: { drafts: [change.id] },
      },
    ],
  });
  const found = await ta.asOwner({ method: 'GET', url: '/api/search?q=drafted&kinds=messages' });
  t.equal(found.json().items.length, 1, 'the assistant’s message is found by search');
  const usageSummary = await ta.asOwner({ method: 'GET', url: '/api/ai-usage' });
  t.match(usageSummary.json(), {
    today: { input_tokens: 1500, output_tokens: 85, requests: 1 },
    top_model: 'claude-test-1',
  });
});

t.test(
  'one turn at a time; a client that goes away kills the program and frees the conversation',
  async (t) => {
    const { ta, dir, base } = await setup(t, 'hang');
    const { status, controller, seen } = await startTurn(base, 'hello');
    t.equal(status, 200);
    t.match(seen, /^: open\n\n/, 'the stream opens at once');
    t.match(seen, /event: message/, 'the first output arrives while the program runs');
    const pid = await pidOf(dir);
    t.ok(processAlive(pid));

    const second = await ta.asOwner({
      method: 'POST',
      url: '/api/assistant/turn',
      payload: { message: 'again', view: null },
    });
    t.equal(second.statusCode, 409);
    t.equal(second.json().code, 'TURN_IN_PROGRESS');

    controller.abort();
    t.ok(await gone(pid), 'the program is killed when the client disconnects');
    for (let i = 0; i < 100; i++) {
      const [row] = await ta.sql<
        { busy: boolean }[]
      >`select turn_started_at is not null as busy from conversations`;
      if (!row.busy) break;
      await sleep(25);
    }
    const [{ busy }] = await ta.sql<
      { busy: boolean }[]
    >`select turn_started_at is not null as busy from conversations`;
    t.notOk(busy, 'the conversation is free again');
    const [{ live }] = await ta.sql<{ live: number }[]>`
    select count(*)::int as live from agent_tokens where revoked_at is null`;
    t.equal(live, 0, 'the turn token was revoked');
  },
);

t.test(
  'a client that goes away ends its turn at once: the next turn is never refused while the program is reaped',
  async (t) => {
    const { ta, dir, base } = await setup(t, 'escape');
    const helpers: number[] = [];
    t.teardown(() => {
      for (const pid of helpers) if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    });
    /** Starts a turn up to the program's first output; notes its helper and takes away the pid file it wrote. */
    const started = async (message: string) => {
      const { status, controller } = await startTurn(base, message);
      if (status !== 200) return { status, controller, pid: 0 };
      const pid = await pidOf(dir);
      helpers.push(Number(await readFile(path.join(dir, 'helper-pid'), 'utf8')));
      await rm(path.join(dir, 'pid'));
      return { status, controller, pid };
    };

    const first = await started('hello');
    t.equal(first.status, 200);
    first.controller.abort();
    t.ok(await gone(first.pid), 'the program is killed when the client disconnects');
    t.ok(processAlive(helpers[0]), 'while a helper it started still holds its output open');

    const second = await started('again');
    t.equal(second.status, 200, 'the next turn in the conversation starts: the first ended with its client');
    second.controller.abort();
    t.ok(await gone(second.pid));

    const rows = await ta.sql<{ role: string; content: string; interrupted: boolean | null }[]>`
      select role, content, (metadata->>'interrupted')::boolean as interrupted from messages
      order by created_at, id`;
    t.match(rows.slice(0, 2), [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Thinking…', interrupted: true },
    ]);
    t.match(
      rows[2],
      { role: 'user', content: 'again' },
      'the interrupted answer comes before the next question',
    );
  },
);

t.test('a turn that runs past ASSISTANT_TIMEOUT_MS ends with an error and no program left', async (t) => {
  // Long enough for the program to start and write its pid on a busy machine: the timeout must cut a running one.
  const { dir, base } = await setup(t, 'hang', { ASSISTANT_TIMEOUT_MS: '5000' });
  const result = await turn(base, '/api/assistant/turn', { message: 'hello', view: null });
  const pid = await pidOf(dir);
  t.same(
    result.events.map((event) => event.event),
    ['message', 'error', 'usage', 'done'],
  );
  t.match(result.events[1].data, { message: /longer than 5000 ms/ });
  t.ok(await gone(pid));
});

t.test(
  'malformed tool results make no draft and do not end the stream; an error result is an error',
  async (t) => {
    const { base } = await setup(t, 'malformed');
    const result = await turn(base, '/api/assistant/turn', { message: 'hello', view: null });
    const names = result.events.map((event) => event.event);
    t.notOk(names.includes('draft'));
    t.same(names.slice(-3), ['message', 'usage', 'done'], 'the stream went on to its end');
    t.equal(names.filter((name) => name === 'tool_result').length, 3);

    const failed = await setup(t, 'failed');
    const errored = await turn(failed.base, '/api/assistant/turn', { message: 'hello', view: null });
    const error = errored.events.find((event) => event.event === 'error');
    t.match(error?.data, { message: /529 overloaded/ }, 'a success result with is_error: true is an error');
    const [usage] = await failed.ta.sql<{ ok: boolean }[]>`select ok from ai_usage_records`;
    t.equal(usage.ok, false);
  },
);

t.test('companions, security and infrastructure agents; who may start turns', async (t) => {
  const { ta, base } = await setup(t, 'normal');
  const space = await createSpace(ta, 'Garage');
  const result = await turn(base, `/api/spaces/${space.id}/companion/turn`, {
    message: 'note it',
    view: { page: 1 },
  });
  t.equal(result.status, 200);
  const [change] = await ta.sql<{ space_id: string }[]>`select space_id from pending_changes`;
  t.equal(
    change.space_id,
    space.id,
    'the companion’s write lands in its space: the turn token is scoped to it',
  );
  const history = await ta.asOwner({
    method: 'GET',
    url: `/api/spaces/${space.id}/companion/history?limit=1`,
  });
  t.match(history.json(), { has_more: true, items: [{ role: 'assistant' }] });
  const older = await ta.asOwner({
    method: 'GET',
    url: `/api/spaces/${space.id}/companion/history?limit=5&before=${history.json().items[0].id}`,
  });
  t.match(older.json(), { has_more: false, items: [{ role: 'user', content: 'note it' }] });
  t.equal(
    (
      await ta.asOwner({
        method: 'GET',
        url: `/api/spaces/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/companion/history`,
      })
    ).statusCode,
    404,
  );

  const missing = await ta.asOwner({
    method: 'POST',
    url: '/api/security/nobody',
    payload: { message: 'x', view: null },
  });
  t.equal(missing.statusCode, 404);
  await createAgent(ta, { name: 'plain', tier: 'read' });
  const lacking = await ta.asOwner({
    method: 'POST',
    url: '/api/security/plain',
    payload: { message: 'x', view: null },
  });
  t.equal(lacking.statusCode, 403);
  t.equal(lacking.json().code, 'CAPABILITY_MISSING');
  const noInfra = await ta.asOwner({
    method: 'POST',
    url: '/api/infra/chat',
    payload: { message: 'x', view: null },
  });
  t.equal(noInfra.statusCode, 404);
  t.equal(noInfra.json().code, 'INFRA_AGENT_MISSING');

  const sentinel = await ta.asOwner({
    method: 'POST',
    url: '/api/agents',
    payload: { name: 'sentinel', tier: 'read', capabilities: ['security'], persona: 'You audit.' },
  });
  t.equal(sentinel.statusCode, 201);
  const security = await turn(base, '/api/security/sentinel', { message: 'audit', view: null });
  t.equal(security.events.at(-1)?.event, 'done');
  const [{ pending }] = await ta.sql<
    { pending: number }[]
  >`select count(*)::int as pending from pending_changes`;
  t.equal(pending, 1, 'a read-tier security agent’s write was refused, not drafted');

  const agent = await createAgent(ta, { tier: 'owner' });
  const byAgent = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/assistant/turn',
    payload: { message: 'x', view: null },
  });
  t.equal(byAgent.statusCode, 403, 'turns run agents on the owner’s behalf: owner only');
  t.equal((await ta.anon({ method: 'GET', url: '/api/assistant/history' })).statusCode, 401);
});

t.test('without a runner a turn is 503 before any stream starts', async (t) => {
  const ta = await testApp(t);
  const response = await ta.asOwner({
    method: 'POST',
    url: '/api/assistant/turn',
    payload: { message: 'hi', view: null },
  });
  t.equal(response.statusCode, 503);
  t.equal(response.json().code, 'ASSISTANT_NOT_CONFIGURED');
  t.match(response.headers['content-type'], /json/);
});
