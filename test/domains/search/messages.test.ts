// Messages hold the owner's words: agents never find them in search (REST or the search tool), except the messages
// of the conversation their own turn belongs to. Scope and ranking are tested in test/domains/search.test.ts.
import t from 'tap';
import { mintTurnToken } from '../../../domains/agents/turn-token.ts';
import { insertConversation, insertMessage } from '../../../domains/assistant/store.ts';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import { listening, turn } from '../assistant/helpers.ts';

interface Hit {
  kind: string;
  id: string;
  snippet: string;
}

/** A page in Home and two of the owner's conversations about kubernetes: one in Home, one global. */
async function seed(ta: TestApp) {
  const home = await createSpace(ta, 'Home');
  const page = await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: home.id, title: 'Kubernetes notes' },
  });
  // The owner's own words: a chat in Home and a global one.
  const [homeMessage, globalMessage] = await Promise.all(
    [
      { space_id: home.id, content: 'Should the home lab run kubernetes?' },
      { space_id: null, content: 'A single-node kubernetes is fine for learning.' },
    ].map(async ({ space_id, content }) => {
      const chat = await insertConversation(ta.sql, { space_id, title: 'Chat' });
      return insertMessage(ta.sql, { conversation_id: chat.id, role: 'user', content });
    }),
  );
  return {
    home,
    ids: { page: page.json().id as string, homeMessage: homeMessage.id, globalMessage: globalMessage.id },
  };
}

/** The search tool over the tool protocol, as `token`'s agent. */
async function searchTool(ta: TestApp, token: string, args: Record<string, unknown>) {
  const response = await ta.asAgent(token, {
    method: 'POST',
    url: '/api/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: args } },
  });
  const result = response.json().result;
  if (!result || result.isError) throw new Error(`the search tool failed: ${response.body}`);
  return result.structuredContent as { items: Hit[]; total: number; facets: Record<string, number> };
}

t.test(
  "agents never find the owner's messages, but those of the conversation their turn belongs to",
  async (t) => {
    const ta = await testApp(t);
    const { home, ids } = await seed(ta);
    const reader = await createAgent(ta, { tier: 'read' });
    const scoped = await createAgent(ta, { tier: 'owner', space_id: home.id });
    for (const [who, agent] of [
      ['an unscoped read-tier agent', reader],
      ['a scoped owner-tier agent', scoped],
    ] as const) {
      const rest = await ta.asAgent(agent.token, {
        method: 'GET',
        url: '/api/search?q=kubernetes&kinds=messages',
      });
      t.equal(rest.statusCode, 200);
      t.same(rest.json().items, [], `${who}: no message over REST`);
      t.same(rest.json().facets, { tags: [] }, `${who}: not even a count`);
      const kinds = new Set(
        (await searchTool(ta, agent.token, { q: 'kubernetes' })).items.map((hit) => hit.kind),
      );
      t.notOk(kinds.has('messages'), `${who}: no message from the search tool`);
      const suggested = await ta.asAgent(agent.token, {
        method: 'GET',
        url: '/api/search?q=kubernetis&kinds=messages',
      });
      t.same(suggested.json().suggestions, [], `${who}: no spelling learnt from the messages either`);
    }

    // A turn of the home companion: its token belongs to the companion's conversation in Home.
    const companion = await createAgent(ta, { tier: 'suggest', space_id: home.id });
    const chat = await insertConversation(ta.sql, { space_id: home.id, title: 'Companion chat' });
    await ta.sql`update conversations set agent_id = ${companion.id} where id = ${chat.id}`;
    const own = await insertMessage(ta.sql, {
      conversation_id: chat.id,
      role: 'user',
      content: 'Remind me which kubernetes version we run.',
    });
    const turn = await mintTurnToken(
      ta.sql,
      { agentId: companion.id, spaceId: home.id, conversationId: chat.id },
      60_000,
    );
    const found = await ta.asAgent(turn.token, {
      method: 'GET',
      url: '/api/search?q=kubernetes&kinds=messages',
    });
    t.same(
      found.json().items.map((hit: Hit) => hit.id),
      [own.id],
      "the turn's own conversation only: not the owner's other chat in the same space, nor the global one",
    );
    t.same(found.json().facets, { messages: 1, tags: [] });
    t.same(
      (await searchTool(ta, turn.token, { q: 'kubernetes', kinds: 'messages' })).items.map((hit) => hit.id),
      [own.id],
      'the search tool alike',
    );
    const everything = await ta.asAgent(turn.token, { method: 'GET', url: '/api/search?q=kubernetes' });
    t.same(new Set(everything.json().items.map((hit: Hit) => hit.id)), new Set([ids.page, own.id]));
    const [{ token_conversation }] = await ta.sql<{ token_conversation: string }[]>`
    select conversation_id as token_conversation from agent_tokens where id = ${turn.id}`;
    t.equal(token_conversation, chat.id, 'the turn token records its conversation');

    const owner = await ta.asOwner({ method: 'GET', url: '/api/search?q=kubernetes&kinds=messages' });
    t.same(
      new Set(owner.json().items.map((hit: Hit) => hit.id)),
      new Set([ids.homeMessage, ids.globalMessage, own.id]),
      'the owner finds every message',
    );
  },
);

t.test("a real assistant turn's search tool finds its own conversation's words and no other", async (t) => {
  const model = 'qwen2.5-7b-instruct';
  const results: string[] = [];
  const upstream = await startUpstream(t, (request, response) => {
    const body = JSON.parse(request.body) as { messages: { role: string; content: string | null }[] };
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const tool = body.messages.find((message) => message.role === 'tool');
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    if (!tool) {
      const call = {
        index: 0,
        id: 'call_1',
        type: 'function',
        function: { name: 'search', arguments: '{"q":"kubernetes","kinds":"messages"}' },
      };
      response.write(chunk({ role: 'assistant', content: null, tool_calls: [call] }, 'tool_calls'));
    } else {
      results.push(tool.content ?? '');
      response.write(chunk({ role: 'assistant', content: 'Done.' }, 'stop'));
    }
    response.end('data: [DONE]\n\n');
  });
  const ta = await testApp(t, {
    env: { ASSISTANT_RUNNER: 'openai', ASSISTANT_OPENAI_URL: `${upstream.url}/v1`, ASSISTANT_MODEL: model },
  });
  const { ids } = await seed(ta);
  const base = await listening(ta);
  const result = await turn(base, '/api/assistant/turn', { message: 'Is kubernetes worth it?', view: null });
  t.equal(result.status, 200);
  t.equal(results.length, 1, 'the model got the tool result');
  const found = JSON.parse(results[0]) as { items: Hit[] };
  const [asked] = await ta.sql<{ id: string }[]>`
    select id from messages where content = 'Is kubernetes worth it?' and role = 'user'`;
  t.same(
    found.items.map((hit) => hit.id),
    [asked.id],
    "the turn's own message",
  );
  for (const other of [ids.homeMessage, ids.globalMessage]) {
    t.notOk(results[0].includes(other), "no message of the owner's other conversations");
  }
});
