// Actions, assistant settings and AI usage.
import t from 'tap';
import { createAgent, testApp } from '../../helpers/app.ts';
import { svg, uploadSet, zip } from '../icons/helpers.ts';

t.test(
  'actions: the owner runs at once; an agent proposes; approval enqueues exactly once; rejection is audited',
  async (t) => {
    const ta = await testApp(t);
    const owned = await ta.asOwner({
      method: 'POST',
      url: '/api/actions/run',
      payload: { action: 'speedtest.run' },
    });
    t.equal(owned.statusCode, 202);
    t.match(owned.json(), { job_id: String, task: 'speedtest.run', status: 'queued' });
    const [job] = await ta.sql<
      { payload: unknown }[]
    >`select payload from job_records where id = ${owned.json().job_id}`;
    t.same(job.payload, { trigger: 'manual' }, 'the action’s defaults make the payload');

    const unknown = await ta.asOwner({
      method: 'POST',
      url: '/api/actions/run',
      payload: { action: 'ingest.url' },
    });
    t.equal(unknown.statusCode, 400, 'only actionable tasks');
    t.equal(unknown.json().code, 'NOT_AN_ACTION');
    const badParams = await ta.asOwner({
      method: 'POST',
      url: '/api/actions/run',
      payload: { action: 'speedtest.run', params: { trigger: 'whenever' } },
    });
    t.equal(badParams.statusCode, 400);

    const agent = await createAgent(ta, { tier: 'suggest' });
    const proposals: string[] = [];
    for (let i = 0; i < 2; i++) {
      const proposed = await ta.asAgent(agent.token, {
        method: 'POST',
        url: '/api/actions/run',
        payload: { action: 'speedtest.run' },
      });
      t.equal(proposed.statusCode, 202);
      t.match(proposed.json(), { action_id: String, status: 'pending' });
      proposals.push(proposed.json().action_id as string);
    }
    const reader = await createAgent(ta, { tier: 'read' });
    t.equal(
      (
        await ta.asAgent(reader.token, {
          method: 'POST',
          url: '/api/actions/run',
          payload: { action: 'speedtest.run' },
        })
      ).statusCode,
      403,
    );
    t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/actions/pending' })).statusCode, 403);
    const pending = await ta.asOwner({ method: 'GET', url: '/api/actions/pending' });
    t.same(
      pending.json().items.map((item: { id: string }) => item.id),
      proposals,
    );

    const approvals = await Promise.all(
      Array.from({ length: 30 }, () =>
        ta.asOwner({ method: 'POST', url: `/api/actions/${proposals[0]}/approve` }),
      ),
    );
    t.equal(approvals.filter((answer) => answer.statusCode === 200).length, 1, 'approved once');
    t.ok(
      approvals
        .filter((answer) => answer.statusCode !== 200)
        .every((answer) => answer.json().code === 'ACTION_NOT_PENDING'),
    );
    const approved = approvals.find((answer) => answer.statusCode === 200)?.json();
    t.match(approved, { status: 'approved', job_id: String, decided_by: 'owner' });
    const [{ runs }] = await ta.sql<{ runs: number }[]>`
    select count(*)::int as runs from job_records where task = 'speedtest.run'`;
    t.equal(runs, 2, 'the owner’s run and the one approval: nothing more');

    const rejected = await ta.asOwner({
      method: 'POST',
      url: `/api/actions/${proposals[1]}/reject`,
      payload: { reason: 'not now' },
    });
    t.match(rejected.json(), { status: 'rejected', reason: 'not now', job_id: null });
    t.equal(
      (await ta.asOwner({ method: 'POST', url: `/api/actions/${proposals[1]}/approve` })).statusCode,
      409,
    );
    const audit = await ta.sql<{ action: string; outcome: string; entity_type: string; entity_id: string }[]>`
    select action, outcome, entity_type, entity_id from audit_log order by created_at`;
    t.match(audit, [
      { action: 'approve', outcome: 'applied', entity_type: 'action', entity_id: proposals[0] },
      { action: 'reject', outcome: 'rejected', entity_type: 'action', entity_id: proposals[1] },
    ]);
    const missing = await ta.asOwner({
      method: 'POST',
      url: `/api/actions/${'1'.repeat(8)}-1111-4111-8111-${'1'.repeat(12)}/approve`,
    });
    t.equal(missing.statusCode, 404);
  },
);

t.test('assistant settings are typed, with defaults; agents must exist', async (t) => {
  const ta = await testApp(t);
  const defaults = await ta.asOwner({ method: 'GET', url: '/api/assistant/settings' });
  t.same(defaults.json(), {
    avatar: null,
    accent: '#4f9cf9',
    persona: '',
    voiceMode: 'off',
    agent_id: null,
    infra_agent_id: null,
  });
  const base = defaults.json();
  await ta.asOwner(uploadSet('homelab', await zip([{ name: 'proxmox.svg', bytes: svg() }])));
  for (const [avatar, ok] of [
    ['🤖', true],
    ['brand:homeassistant', true],
    ['set:homelab:proxmox', true],
    ['set:homelab:missing', false],
    ['brand:no-such-brand', false],
    ['robot', false],
    ['<script>', false],
  ] as const) {
    const response = await ta.asOwner({
      method: 'PUT',
      url: '/api/assistant/settings',
      payload: { ...base, avatar },
    });
    t.equal(response.statusCode, ok ? 200 : 400, `avatar ${avatar}`);
  }
  for (const patch of [{ accent: 'blue' }, { voiceMode: 'always' }, { persona: 'x'.repeat(20_001) }]) {
    const response = await ta.asOwner({
      method: 'PUT',
      url: '/api/assistant/settings',
      payload: { ...base, ...patch },
    });
    t.equal(response.statusCode, 400, JSON.stringify(patch));
  }
  const ghost = await ta.asOwner({
    method: 'PUT',
    url: '/api/assistant/settings',
    payload: { ...base, agent_id: '22222222-2222-4222-8222-222222222222' },
  });
  t.equal(ghost.statusCode, 404);
  const saved = await ta.asOwner({
    method: 'PUT',
    url: '/api/assistant/settings',
    payload: { ...base, persona: 'Short answers.', voiceMode: 'push-to-talk', accent: '#a77bf3' },
  });
  t.match(saved.json(), { persona: 'Short answers.', voiceMode: 'push-to-talk', accent: '#a77bf3' });
  t.match((await ta.asOwner({ method: 'GET', url: '/api/assistant/settings' })).json(), {
    voiceMode: 'push-to-talk',
  });
});

t.test("the spec's four settings alone are a whole write; the hub's own fields are kept", async (t) => {
  const ta = await testApp(t);
  const agent = await createAgent(ta, { tier: 'suggest' });
  const chosen = await ta.asOwner({
    method: 'PUT',
    url: '/api/assistant/settings',
    payload: {
      avatar: null,
      accent: '#4f9cf9',
      persona: '',
      voiceMode: 'off',
      agent_id: agent.id,
      infra_agent_id: null,
    },
  });
  t.equal(chosen.statusCode, 200, chosen.body);
  const four = { avatar: '🤖', accent: '#a77bf3', persona: 'Brief.', voiceMode: 'hands-free' };
  const written = await ta.asOwner({ method: 'PUT', url: '/api/assistant/settings', payload: four });
  t.equal(written.statusCode, 200, written.body);
  const expected = { ...four, agent_id: agent.id, infra_agent_id: null };
  t.same(written.json(), expected, 'the agents chosen before are kept');
  t.same((await ta.asOwner({ method: 'GET', url: '/api/assistant/settings' })).json(), expected);
  const partial = await ta.asOwner({
    method: 'PUT',
    url: '/api/assistant/settings',
    payload: { accent: '#000000' },
  });
  t.equal(partial.statusCode, 400, "each of the spec's four is still required");
  t.match(partial.json().message, /avatar|persona|voiceMode/);
});

t.test(
  'AI usage: reports from tools and agents; today, this week, the top model, local latency and errors',
  async (t) => {
    const ta = await testApp(t);
    const agent = await createAgent(ta, { tier: 'suggest' });
    const report = (payload: Record<string, unknown>, token?: string) =>
      token
        ? ta.asAgent(token, { method: 'POST', url: '/api/ai-usage/records', payload })
        : ta.asOwner({ method: 'POST', url: '/api/ai-usage/records', payload });
    for (let i = 1; i <= 10; i++) {
      const answer = await report(
        {
          source: 'n8n',
          model: 'llama3.1:8b',
          input_tokens: 100,
          output_tokens: 10,
          latency_ms: i * 100,
          ok: i !== 10,
          local: true,
        },
        agent.token,
      );
      t.equal(answer.statusCode, 201);
    }
    t.equal(
      (
        await report({
          source: 'claude',
          model: 'claude-sonnet',
          input_tokens: 5000,
          output_tokens: 500,
          latency_ms: 4000,
        })
      ).statusCode,
      201,
    );
    await ta.sql`
    insert into ai_usage_records (source, model, input_tokens, output_tokens, created_at)
    values ('old', 'gpt-old', 99999, 1, now() - interval '10 days')`;
    const [row] = await ta.sql<
      { agent_id: string }[]
    >`select agent_id from ai_usage_records where source = 'n8n' limit 1`;
    t.equal(row.agent_id, agent.id, 'an agent’s report carries its id');
    t.equal((await report({ source: 'x', model: 'm', input_tokens: -1, output_tokens: 0 })).statusCode, 400);

    const summary = await ta.asOwner({ method: 'GET', url: '/api/ai-usage?tz=Europe/Lisbon' });
    t.equal(summary.statusCode, 200);
    const body = summary.json();
    t.match(body, {
      time_zone: 'Europe/Lisbon',
      today: { input_tokens: 6000, output_tokens: 600, requests: 11 },
      week: { input_tokens: 6000, output_tokens: 600, requests: 11 },
      top_model: 'claude-sonnet',
      local: { requests: 10, error_rate: 0.1 },
    });
    t.equal(body.local.p50_latency_ms, 550);
    t.ok(body.local.p95_latency_ms > 900 && body.local.p95_latency_ms <= 1000);
    t.same(
      body.models.map((model: { model: string }) => model.model),
      ['claude-sonnet', 'llama3.1:8b'],
      'the last 7 days, most tokens first',
    );
    t.equal((await ta.asOwner({ method: 'GET', url: '/api/ai-usage?tz=Mars/Olympus' })).statusCode, 400);
    t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/ai-usage' })).statusCode, 200);
  },
);
