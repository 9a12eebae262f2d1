// Agents: the owner manages them and their tokens; an agent reads only its own profile.
import t from 'tap';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';
import { absentId as missingId } from '../helpers/routes.ts';

t.test('the owner manages agents; agents may not', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta, 'Lab');

  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/agents',
    payload: { name: 'helper', persona: 'Careful and brief.', capabilities: ['search', 'pages.read'] },
  });
  t.equal(created.statusCode, 201);
  const agent = created.json();
  t.match(agent, {
    name: 'helper',
    display_name: 'helper',
    persona: 'Careful and brief.',
    capabilities: ['search', 'pages.read'],
    tier: 'suggest',
    space_id: null,
    status: 'active',
  });

  const got = await ta.asOwner({ method: 'GET', url: `/api/agents/${agent.id}` });
  t.same(got.json(), agent);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/agents/${missingId}` })).statusCode, 404);

  const changes = {
    tier: 'read',
    space_id: space.id,
    persona: 'Terse.',
    capabilities: ['search'],
    display_name: 'Helper',
    status: 'disabled',
  };
  const patched = await ta.asOwner({ method: 'PATCH', url: `/api/agents/${agent.id}`, payload: changes });
  t.equal(patched.statusCode, 200);
  t.match(patched.json(), changes);
  t.same(
    (await ta.asOwner({ method: 'GET', url: `/api/agents/${agent.id}` })).json(),
    patched.json(),
    'kept',
  );
  t.ok(new Date(patched.json().updated_at) >= new Date(agent.updated_at));
  const unscoped = await ta.asOwner({
    method: 'PATCH',
    url: `/api/agents/${agent.id}`,
    payload: { space_id: null, status: 'active' },
  });
  t.match(unscoped.json(), { space_id: null, status: 'active', tier: 'read' });
  t.equal(
    (await ta.asOwner({ method: 'PATCH', url: `/api/agents/${missingId}`, payload: { tier: 'read' } }))
      .statusCode,
    404,
  );

  const invalid: [string, string, string, object][] = [
    ['a bad name', 'POST', '/api/agents', { name: 'Bad Name!' }],
    ['an empty name', 'POST', '/api/agents', { name: '' }],
    ['an unknown tier', 'POST', '/api/agents', { name: 'tiered', tier: 'admin' }],
    ['an unknown field', 'POST', '/api/agents', { name: 'extra', colour: 'red' }],
    ['a duplicated capability', 'POST', '/api/agents', { name: 'dup', capabilities: ['a', 'a'] }],
    ['a bad space id', 'POST', '/api/agents', { name: 'spaced', space_id: 'lab' }],
    ['a patch with an unknown tier', 'PATCH', `/api/agents/${agent.id}`, { tier: 'root' }],
    ['a patch with an unknown field', 'PATCH', `/api/agents/${agent.id}`, { name: 'renamed' }],
    ['an empty patch', 'PATCH', `/api/agents/${agent.id}`, {}],
    ['a bad status', 'PATCH', `/api/agents/${agent.id}`, { status: 'asleep' }],
  ];
  for (const [what, method, url, payload] of invalid) {
    const response = await ta.asOwner({ method: method as 'POST' | 'PATCH', url, payload });
    t.equal(response.statusCode, 400, what);
    t.equal(response.json().statusCode, 400, `${what}: error body`);
  }
  const duplicate = await ta.asOwner({ method: 'POST', url: '/api/agents', payload: { name: 'helper' } });
  t.equal(duplicate.statusCode, 409, 'duplicate name');
  t.equal(duplicate.json().code, 'UNIQUE_VIOLATION');
  const ghostSpace = await ta.asOwner({
    method: 'POST',
    url: '/api/agents',
    payload: { name: 'ghost', space_id: missingId },
  });
  t.equal(ghostSpace.statusCode, 409, 'a scope naming a missing space is refused');

  const list = await ta.asOwner({ method: 'GET', url: '/api/agents?limit=10' });
  t.same(
    list.json().items.map((item: { name: string }) => item.name),
    ['helper'],
  );
  t.equal(list.json().total, 1);

  // Even an owner-tier agent is not the owner: agent management stays with the owner.
  const strong = await createAgent(ta, { name: 'strong', tier: 'owner' });
  const forbidden: [string, string, object?][] = [
    ['GET', '/api/agents'],
    ['POST', '/api/agents', { name: 'spawned' }],
    ['GET', `/api/agents/${agent.id}`],
    ['PATCH', `/api/agents/${strong.id}`, { tier: 'owner' }],
    ['DELETE', `/api/agents/${agent.id}`],
    ['GET', '/api/agent-tokens'],
    ['POST', '/api/agent-tokens', { agent_id: strong.id }],
    ['DELETE', `/api/agent-tokens/${strong.tokenId}`],
  ];
  for (const [method, url, payload] of forbidden) {
    const response = await ta.asAgent(strong.token, {
      method: method as 'GET' | 'POST' | 'PATCH' | 'DELETE',
      url,
      ...(payload ? { payload } : {}),
    });
    t.equal(response.statusCode, 403, `agent: ${method} ${url}`);
    t.equal(response.json().code, 'OWNER_ONLY');
  }
  const [{ agents }] = await ta.sql<{ agents: number }[]>`select count(*)::int as agents from agents`;
  t.equal(agents, 2, 'the refused agent calls changed nothing');

  // Deleting an agent takes its tokens with it.
  const doomed = await createAgent(ta, { name: 'doomed' });
  await ta.asOwner({ method: 'POST', url: '/api/agent-tokens', payload: { agent_id: doomed.id } });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/agents/${doomed.id}` })).statusCode, 204);
  const [{ tokens }] = await ta.sql<{ tokens: number }[]>`
    select count(*)::int as tokens from agent_tokens where agent_id = ${doomed.id}`;
  t.equal(tokens, 0, 'its tokens are gone');
  t.equal(
    (await ta.asAgent(doomed.token, { method: 'GET', url: `/api/agents/${doomed.id}/profile` })).statusCode,
    401,
  );
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/agents/${doomed.id}` })).statusCode, 404);
});

t.test('an agent profile is readable by the owner and by the agent itself only', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const self = await createAgent(ta, {
    name: 'self',
    persona: 'I tidy pages.',
    tier: 'read',
    space_id: space.id,
  });
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/agents/${self.id}`,
    payload: { capabilities: ['pages.read'] },
  });
  const other = await createAgent(ta, { name: 'nosy' });
  const url = `/api/agents/${self.id}/profile`;
  const expected = {
    id: self.id,
    name: 'self',
    display_name: 'self',
    persona: 'I tidy pages.',
    capabilities: ['pages.read'],
    tier: 'read',
    space_id: space.id,
    status: 'active',
  };

  const byOwner = await ta.asOwner({ method: 'GET', url });
  t.equal(byOwner.statusCode, 200);
  t.same(byOwner.json(), expected);
  const bySelf = await ta.asAgent(self.token, { method: 'GET', url });
  t.same(bySelf.json(), expected);
  const byOther = await ta.asAgent(other.token, { method: 'GET', url });
  t.equal(byOther.statusCode, 403);
  t.notOk(byOther.body.includes('I tidy pages.'), 'nothing of the profile leaks');
  t.equal(
    (await ta.asAgent(other.token, { method: 'GET', url: `/api/agents/${missingId}/profile` })).statusCode,
    403,
  );
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/agents/${missingId}/profile` })).statusCode, 404);
  t.equal((await ta.anon({ method: 'GET', url })).statusCode, 401);
});
