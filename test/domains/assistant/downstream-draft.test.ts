// A downstream MCP call waiting for approval shows in the assistant's stream as a draft, as a pending change does;
// the call is made only when the owner approves it.
import t from 'tap';
import { createAgent, testApp } from '../../helpers/app.ts';
import { startDownstream } from '../../helpers/mcp-downstream.ts';
import { fakeModel, listening, turn } from './helpers.ts';

t.test('a pending downstream call is a draft in the stream; approving it makes the call', async (t) => {
  const home = await startDownstream(t);
  const model = await fakeModel(t, (round) =>
    round === 0
      ? { tool: 'home.set_light', arguments: { entity: 'light.kitchen', on: true } }
      : { text: 'The kitchen light waits for your approval.' },
  );
  const ta = await testApp(t, { env: model.env });
  const saved = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp-servers',
    payload: { name: 'home', url: home.url },
  });
  t.equal(saved.statusCode, 201, saved.body);
  const agent = await createAgent(ta, { tier: 'suggest' });
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/agents/${agent.id}`,
    payload: { capabilities: ['mcp:home'] },
  });
  const settings = (await ta.asOwner({ method: 'GET', url: '/api/assistant/settings' })).json();
  const chosen = await ta.asOwner({
    method: 'PUT',
    url: '/api/assistant/settings',
    payload: { ...settings, agent_id: agent.id },
  });
  t.equal(chosen.statusCode, 200, chosen.body);
  const base = await listening(ta);

  const result = await turn(base, '/api/assistant/turn', {
    message: 'turn on the kitchen light',
    view: null,
  });
  t.equal(result.status, 200);
  t.same(
    result.events.map((event) => event.event),
    ['tool_call', 'tool_result', 'draft', 'message', 'usage', 'done'],
  );
  const draft = result.events.find((event) => event.event === 'draft')?.data ?? {};
  const pending = (await ta.asOwner({ method: 'GET', url: '/api/actions/pending' })).json().items;
  t.equal(pending.length, 1);
  t.same(draft, {
    pending_action_id: pending[0].id,
    action: 'mcp.call',
    entity_type: 'action',
    summary: 'call home.set_light',
  });
  t.same(home.calls, [], 'nothing is called before the owner approves');
  const history = (await ta.asOwner({ method: 'GET', url: '/api/assistant/history?limit=10' })).json();
  t.same(history.items.at(-1).metadata.drafts, [pending[0].id], 'the message keeps its draft');

  const approved = await ta.asOwner({ method: 'POST', url: `/api/actions/${pending[0].id}/approve` });
  t.equal(approved.statusCode, 200, approved.body);
  t.same(home.calls, [{ tool: 'set_light', args: { entity: 'light.kitchen', on: true } }]);
});
