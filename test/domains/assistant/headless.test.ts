// A headless turn, as a worker runs one: the agent reaches the hub's tools over real HTTP, its suggest-tier write
// becomes a pending change (never a page), and the turn's text, tools, drafts and usage come back and are recorded.
import t from 'tap';
import { findAgent } from '../../../domains/agents/turn-token.ts';
import { runHeadlessTurn } from '../../../domains/assistant/headless.ts';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';
import { freePort } from '../../helpers/process.ts';
import { fakeModel } from './helpers.ts';

t.test('a headless turn writes as its agent through /api/mcp over HTTP; usage is recorded', async (t) => {
  let spaceId = '';
  const model = await fakeModel(t, (round, messages) =>
    round === 0
      ? { tool: 'create_page', arguments: { title: 'Weekly digest', space_id: spaceId, body: 'All well.' } }
      : {
          text: `Drafted. ${messages.some((m) => m.content?.includes('"period":"week"')) ? 'saw view' : ''}`,
        },
  );
  const port = await freePort();
  const ta = await testApp(t, { env: { ...model.env, HUB_URL: `http://127.0.0.1:${port}` } });
  await ta.app.listen({ port, host: '127.0.0.1' });
  spaceId = (await createSpace(ta, 'Home')).id;
  const created = await createAgent(ta, { tier: 'suggest' });
  const agent = await findAgent(ta.sql, created.id);
  if (!agent) throw new Error('no agent');

  const result = await runHeadlessTurn(
    { sql: ta.sql, config: ta.config },
    { agent, prompt: 'Write the weekly digest.', view: { period: 'week' }, spaceId },
  );
  t.equal(result.ok, true, result.error ?? '');
  t.equal(result.text, 'Drafted. saw view', 'the view reached the model');
  t.match(result.tools, [{ name: 'create_page', is_error: false }]);
  t.equal(result.drafts.length, 1);
  const [change] =
    await ta.sql`select entity_type, action, agent_id from pending_changes where id = ${result.drafts[0]}`;
  t.match(change, { entity_type: 'page', action: 'create', agent_id: agent.id });
  const [pages] = await ta.sql`select count(*)::int as n from pages where title = 'Weekly digest'`;
  t.equal(pages.n, 0, 'a suggest-tier write is never direct');
  t.match(result.usage, { model: 'fake-model', input_tokens: 200, output_tokens: 20 });
  const [usage] = await ta.sql`select count(*)::int as n from ai_usage_records where agent_id = ${agent.id}`;
  t.equal(usage.n, 1, 'the usage is recorded');
  const [live] = await ta.sql`
    select count(*)::int as n from agent_tokens where agent_id = ${agent.id} and label = 'assistant turn' and revoked_at is null`;
  t.equal(live.n, 0, 'the turn token is revoked');
});
