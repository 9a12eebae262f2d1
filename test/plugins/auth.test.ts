// The auth hierarchy (README, "Access") through the real app: the owner bearer token, agent tokens and their
// lifecycle, soft auth on mixed routes, the per-agent rate limit and access contexts (owner-only by default).
// Agent management is tested with its domain (test/domains/agents.test.ts), the throttling of guesses in
// test/plugins/guessing.test.ts.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import t from 'tap';
import { findTokenOwner } from '../../domains/agents/store.ts';
import { failureCounter, rateCounter } from '../../domains/sessions/credentials.ts';
import auth, { agentAccess, publicAccess } from '../../plugins/auth.ts';
import errors from '../../plugins/errors.ts';
import { anotherProcess, createAgent, ownerToken, testApp } from '../helpers/app.ts';
import { absentId as missingId } from '../helpers/routes.ts';

const ownerRoute = { method: 'GET', url: '/api/agents' } as const;

t.test('owner bearer token: only the exact token, and never a 500', async (t) => {
  // More wrong tokens than one address may send (tested below).
  const ta = await testApp(t, { env: { AUTH_FAILURE_LIMIT: '100' } });
  const withAuthorization = (authorization: string) => ta.anon({ ...ownerRoute, headers: { authorization } });

  t.equal((await ta.asOwner(ownerRoute)).statusCode, 200, 'the right token');
  t.equal(
    (await withAuthorization(`bearer ${ownerToken}`)).statusCode,
    200,
    'the scheme is case-insensitive',
  );

  const lastChar = ownerToken.at(-1) === 'x' ? 'y' : 'x';
  const sameLength = `${ownerToken.slice(0, -1)}${lastChar}`;
  const refused: [string, string][] = [
    ['a wrong token of the same length', `Bearer ${sameLength}`],
    ['a shorter token', `Bearer ${ownerToken.slice(0, -1)}`],
    ['a longer token', `Bearer ${ownerToken}0`],
    ['a 10 KB token', `Bearer ${'a'.repeat(10 * 1024)}`],
    ['a 10 KB token shaped like an agent token', `Bearer hub_agent_${'a'.repeat(10 * 1024)}`],
    ['an empty header', ''],
    ['Bearer with no token', 'Bearer'],
    ['Bearer with only spaces', 'Bearer    '],
    ['two tokens', `Bearer ${ownerToken} ${ownerToken}`],
    ['Basic credentials', `Basic ${Buffer.from(`owner:${ownerToken}`).toString('base64')}`],
    ['the token without a scheme', ownerToken],
  ];
  for (const [what, authorization] of refused) {
    const response = await withAuthorization(authorization);
    t.equal(response.statusCode, 401, what);
    t.same(
      response.json(),
      { statusCode: 401, code: 'UNAUTHORIZED', error: 'Unauthorized', message: 'invalid credentials' },
      `${what}: error body`,
    );
  }
  const none = await ta.anon(ownerRoute);
  t.same(none.json(), {
    statusCode: 401,
    code: 'UNAUTHORIZED',
    error: 'Unauthorized',
    message: 'authentication required',
  });
});

t.test('agent tokens: shown once, stored hashed, refused once revoked, expired or disabled', async (t) => {
  const ta = await testApp(t);
  const agent = (await ta.asOwner({ method: 'POST', url: '/api/agents', payload: { name: 'scout' } })).json();

  const minted = await ta.asOwner({
    method: 'POST',
    url: '/api/agent-tokens',
    payload: { agent_id: agent.id, label: 'laptop' },
  });
  t.equal(minted.statusCode, 201);
  const token = minted.json();
  t.match(token, {
    id: String,
    agent_id: agent.id,
    label: 'laptop',
    token: /^hub_agent_[A-Za-z0-9_-]{43}$/,
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
  });
  t.ok(token.token.startsWith(token.token_prefix), 'the prefix recognises the token');
  t.ok(token.token_prefix.length < token.token.length - 32, 'the prefix reveals little of it');

  const profile = `/api/agents/${agent.id}/profile`;
  t.equal(
    (await ta.asAgent(token.token, { method: 'GET', url: profile })).statusCode,
    200,
    'the token works',
  );

  const hash = createHash('sha256').update(token.token).digest();
  const listed = await ta.asOwner({ method: 'GET', url: '/api/agent-tokens' });
  t.equal(listed.statusCode, 200);
  t.match(listed.json(), { total: 1, limit: 50, offset: 0 });
  t.same(Object.keys(listed.json().items[0]).sort(), [
    'agent_id',
    'created_at',
    'expires_at',
    'id',
    'label',
    'last_used_at',
    'revoked_at',
    'token_prefix',
  ]);
  t.match(listed.json().items[0].last_used_at, /^\d{4}-/, 'last use is recorded');
  for (const secret of [
    token.token,
    token.token.slice(token.token_prefix.length),
    hash.toString('hex'),
    hash.toString('base64'),
  ]) {
    t.notOk(listed.body.includes(secret), 'the list shows neither the token nor its hash');
  }

  const [row] = await ta.sql<{ token_hash: Buffer; token_prefix: string }[]>`
    select token_hash, token_prefix from agent_tokens where id = ${token.id}`;
  t.ok(row.token_hash.equals(hash), 'the database keeps the SHA-256 of the token');
  const [{ stored }] = await ta.sql<{ stored: string }[]>`
    select row_to_json(t)::text as stored from agent_tokens t where id = ${token.id}`;
  t.notOk(stored.includes(token.token.slice(token.token_prefix.length)), 'no column holds the plaintext');

  // Expired, set directly in the database as time would.
  await ta.sql`update agent_tokens set expires_at = now() - interval '1 minute' where id = ${token.id}`;
  t.equal((await ta.asAgent(token.token, { method: 'GET', url: profile })).statusCode, 401, 'expired token');
  await ta.sql`update agent_tokens set expires_at = now() + interval '1 hour' where id = ${token.id}`;
  t.equal((await ta.asAgent(token.token, { method: 'GET', url: profile })).statusCode, 200, 'valid again');

  const disable = await ta.asOwner({
    method: 'PATCH',
    url: `/api/agents/${agent.id}`,
    payload: { status: 'disabled' },
  });
  t.equal(disable.json().status, 'disabled');
  t.equal((await ta.asAgent(token.token, { method: 'GET', url: profile })).statusCode, 401, 'disabled agent');
  const [{ revoked_at: revokedByDisabling }] = await ta.sql<{ revoked_at: Date | null }[]>`
    select revoked_at from agent_tokens where id = ${token.id}`;
  t.type(revokedByDisabling, Date, 'disabling revoked the token');
  await ta.asOwner({ method: 'PATCH', url: `/api/agents/${agent.id}`, payload: { status: 'active' } });
  t.equal(
    (await ta.asAgent(token.token, { method: 'GET', url: profile })).statusCode,
    401,
    'enabled again, the old token stays revoked',
  );
  const fresh = await ta.asOwner({
    method: 'POST',
    url: '/api/agent-tokens',
    payload: { agent_id: agent.id },
  });
  t.equal(
    (await ta.asAgent(fresh.json().token, { method: 'GET', url: profile })).statusCode,
    200,
    'a token minted after re-enabling works',
  );

  const revoked = await ta.asOwner({ method: 'DELETE', url: `/api/agent-tokens/${token.id}` });
  t.equal(revoked.statusCode, 204);
  t.equal((await ta.asAgent(token.token, { method: 'GET', url: profile })).statusCode, 401, 'revoked token');
  const [{ revoked_at }] = await ta.sql<{ revoked_at: Date | null }[]>`
    select revoked_at from agent_tokens where id = ${token.id}`;
  t.type(revoked_at, Date, 'revocation is kept, not deleted');
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/agent-tokens/${missingId}` })).statusCode, 404);

  const later = new Date(Date.now() + 3600_000).toISOString();
  const expiring = await ta.asOwner({
    method: 'POST',
    url: '/api/agent-tokens',
    payload: { agent_id: agent.id, expires_at: later },
  });
  t.equal(expiring.statusCode, 201);
  t.equal(new Date(expiring.json().expires_at).toISOString(), later);
  const past = await ta.asOwner({
    method: 'POST',
    url: '/api/agent-tokens',
    payload: { agent_id: agent.id, expires_at: new Date(Date.now() - 1000).toISOString() },
  });
  t.equal(past.statusCode, 400, 'an expiry in the past');
  t.equal(past.json().message, 'expires_at must be in the future');
  const unknown = await ta.asOwner({
    method: 'POST',
    url: '/api/agent-tokens',
    payload: { agent_id: missingId },
  });
  t.equal(unknown.statusCode, 404, 'minting for an unknown agent');
  const extra = await ta.asOwner({
    method: 'POST',
    url: '/api/agent-tokens',
    payload: { agent_id: agent.id, tier: 'owner' },
  });
  t.equal(extra.statusCode, 400, 'unknown fields are refused');

  const other = await createAgent(ta, { name: 'other' });
  const filtered = await ta.asOwner({ method: 'GET', url: `/api/agent-tokens?agent_id=${other.id}` });
  t.same(
    filtered.json().items.map((item: { id: string }) => item.id),
    [other.tokenId],
  );
  const [{ count }] = await ta.sql<{ count: number }[]>`select count(*)::int as count from agent_tokens`;
  t.equal(count, 4, 'every mint wrote one row, and the refused mints none');
});

t.test('soft auth: owner-only routes say 401 or 403, open routes stay open', async (t) => {
  const ta = await testApp(t);
  const agent = await createAgent(ta, { tier: 'owner' });
  const bad = { authorization: 'Bearer not-a-real-token' };

  const none = await ta.anon(ownerRoute);
  t.equal(none.statusCode, 401, 'no credentials');
  t.equal(none.json().code, 'UNAUTHORIZED');
  t.equal((await ta.anon({ ...ownerRoute, headers: bad })).statusCode, 401, 'bad credentials');
  const revokedLike = { authorization: 'Bearer hub_agent_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
  t.equal((await ta.anon({ ...ownerRoute, headers: revokedLike })).statusCode, 401, 'an unknown agent token');
  const asAgent = await ta.asAgent(agent.token, ownerRoute);
  t.equal(asAgent.statusCode, 403, 'an agent');
  t.same(asAgent.json(), {
    statusCode: 403,
    code: 'OWNER_ONLY',
    error: 'Forbidden',
    message: 'this route is for the owner only',
  });
  const writeAnon = await ta.anon({ method: 'PUT', url: '/api/theme', payload: { accent: '#123456' } });
  t.equal(writeAnon.statusCode, 401, 'an owner-only write with no credentials');
  const writeAgent = await ta.asAgent(agent.token, {
    method: 'PUT',
    url: '/api/theme',
    payload: { accent: '#123' },
  });
  t.equal(writeAgent.statusCode, 403);

  for (const headers of [{}, bad, { authorization: 'Basic Zm9vOmJhcg==' }, { authorization: 'Bearer' }]) {
    const theme = await ta.anon({ method: 'GET', url: '/api/theme', headers });
    t.equal(theme.statusCode, 200, `GET /api/theme with ${JSON.stringify(headers)}`);
    t.equal(theme.json().palette.accent, '#4f9cf9');
  }
  t.equal((await ta.anon({ method: 'GET', url: '/api/healthz', headers: bad })).statusCode, 200);
});

t.test('per-agent rate limit', async (t) => {
  const ta = await testApp(t, { env: { AGENT_RATE_LIMIT: '5' } });
  const busy = await createAgent(ta, { name: 'busy' });
  const calm = await createAgent(ta, { name: 'calm' });
  const profile = (id: string) => ({ method: 'GET', url: `/api/agents/${id}/profile` }) as const;

  for (let i = 1; i <= 5; i++) {
    t.equal((await ta.asAgent(busy.token, profile(busy.id))).statusCode, 200, `request ${i} of 5`);
  }
  const limited = await ta.asAgent(busy.token, profile(busy.id));
  t.equal(limited.statusCode, 429, 'the sixth request in the minute');
  t.match(limited.headers['retry-after'], /^\d+$/, 'Retry-After in seconds');
  t.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 60);
  t.match(limited.json(), {
    statusCode: 429,
    code: 'RATE_LIMITED',
    error: 'Too Many Requests',
    message: /rate limit of 5 requests per minute/,
  });
  t.same(Object.keys(limited.json()).sort(), ['code', 'error', 'message', 'statusCode']);

  t.equal((await ta.asAgent(calm.token, profile(calm.id))).statusCode, 200, 'another agent is unaffected');
  for (let i = 1; i <= 8; i++) {
    t.equal((await ta.asOwner(profile(busy.id))).statusCode, 200, `owner request ${i}`);
  }
  t.equal(
    (await ta.asAgent(busy.token, profile(busy.id))).statusCode,
    429,
    'the busy agent is still limited',
  );

  // calm has used one request of its five; four malformed ones use up the rest.
  for (let i = 1; i <= 4; i++) {
    const invalid = await ta.asAgent(calm.token, { method: 'GET', url: '/api/agents/not-a-uuid/profile' });
    t.equal(invalid.statusCode, 400, `invalid request ${i}`);
  }
  const afterInvalid = await ta.asAgent(calm.token, profile(calm.id));
  t.equal(afterInvalid.statusCode, 429, 'invalid requests count against the limit too');
});

t.test('the per-agent limit holds across the processes on one database', async (t) => {
  const ta = await testApp(t, { env: { AGENT_RATE_LIMIT: '5' } });
  const other = await anotherProcess(t, ta, { env: { AGENT_RATE_LIMIT: '5' } });
  const agent = await createAgent(ta, { name: 'spread' });
  const request = (app: FastifyInstance) =>
    app.inject({
      method: 'GET',
      url: `/api/agents/${agent.id}/profile`,
      headers: { authorization: `Bearer ${agent.token}` },
    });
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await request(i % 2 === 0 ? ta.app : other)).statusCode);
  t.same(statuses, [200, 200, 200, 200, 200, 429], 'five requests spread over two processes use up the five');
  t.equal((await request(ta.app)).statusCode, 429, 'and the first process refuses too');

  // A window that ended starts afresh.
  await ta.sql`update rate_limit_windows set ends_at = now() - interval '1 second'`;
  t.equal((await request(other)).statusCode, 200, 'a new window');
});

t.test(
  'a route registered in no access context is the owner’s; an open context must name its routes',
  async (t) => {
    const ta = await testApp(t);
    const agent = await createAgent(ta, { tier: 'owner' });
    // The real plugins on the test's database, with routes of this test's own.
    async function appWith(routes: FastifyPluginAsyncTypebox): Promise<FastifyInstance> {
      const app = Fastify();
      t.teardown(() => app.close());
      await app.register(errors);
      await app.register(auth, {
        findTokenOwner: (hash) => findTokenOwner(ta.sql, hash),
        ownerToken,
        access: null,
        agentRateLimitPerMinute: 100,
        failures: failureCounter(ta.sql, 10),
        rates: rateCounter(ta.sql),
      });
      await app.register(routes, { prefix: '/api' });
      await app.ready();
      return app;
    }
    const ok = async () => ({ ok: true });

    const plain = await appWith(async (api) => {
      api.get('/plain', ok);
      api.post('/plain', ok);
    });
    for (const method of ['GET', 'POST'] as const) {
      const asAgent = await plain.inject({
        method,
        url: '/api/plain',
        headers: { authorization: `Bearer ${agent.token}` },
      });
      t.same(
        { status: asAgent.statusCode, code: asAgent.json().code },
        { status: 403, code: 'OWNER_ONLY' },
        `${method}: an agent`,
      );
      const anonymous = await plain.inject({ method, url: '/api/plain' });
      t.equal(anonymous.statusCode, 401, `${method}: nobody`);
      const owner = await plain.inject({
        method,
        url: '/api/plain',
        headers: { authorization: `Bearer ${ownerToken}` },
      });
      t.equal(owner.statusCode, 200, `${method}: the owner`);
    }

    const listed = await appWith(
      agentAccess(async (api) => {
        api.get('/search', ok);
      }),
    );
    const search = await listed.inject({
      method: 'GET',
      url: '/api/search',
      headers: { authorization: `Bearer ${agent.token}` },
    });
    t.equal(search.statusCode, 200, 'a route in agentAccess and in agentRoutes is open to agents');

    const unlisted: [typeof agentAccess, 'get' | 'delete', string, RegExp, string][] = [
      [
        agentAccess,
        'get',
        '/unlisted',
        /GET \/api\/unlisted is registered in agentAccess but is not in agentRoutes/,
        'agentAccess with a route agentRoutes does not name stops the start',
      ],
      [
        agentAccess,
        'delete',
        '/search',
        /DELETE \/api\/search is registered in agentAccess but is not in agentRoutes/,
        'the method counts: only the listed one opens',
      ],
      [
        publicAccess,
        'get',
        '/search',
        /GET \/api\/search is registered in publicAccess but is not in publicRoutes/,
        'publicAccess likewise',
      ],
    ];
    for (const [context, method, url, refusal, what] of unlisted) {
      await t.rejects(
        appWith(
          context(async (api) => {
            api[method](url, ok);
          }),
        ),
        refusal,
        what,
      );
    }
  },
);
