// The auth hierarchy (DESIGN.md section 5) through the real app: the owner bearer token, agent tokens and their
// lifecycle, soft auth on mixed routes, the per-agent rate limit, access contexts (owner-only by default) and the
// throttling of guesses per client address. Agent management is tested with its domain
// (test/domains/agents.test.ts).
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import t from 'tap';
import { findTokenOwner } from '../../domains/agents/store.ts';
import { failureCounter } from '../../domains/sessions/index.ts';
import auth, { agentAccess, failureKey, publicAccess, sessionCookie } from '../../plugins/auth.ts';
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

t.test('failureKey: the client address, an IPv6 client by its /64', async (t) => {
  t.equal(failureKey('203.0.113.9'), '203.0.113.9');
  t.equal(failureKey('::ffff:203.0.113.9'), '203.0.113.9', 'IPv4-mapped is IPv4');
  t.equal(failureKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
  t.equal(failureKey('2001:db8:1:2::1'), failureKey('2001:db8:1:2:ffff::9'), 'one /64, one count');
  t.not(failureKey('2001:db8:1:3::1'), failureKey('2001:db8:1:2::1'));
});

/** A request from `address` carrying `authorization` (or none). */
function from(address: string, authorization?: string, request: Partial<InjectOptions> = {}): InjectOptions {
  return {
    method: 'GET',
    url: '/api/spaces',
    remoteAddress: address,
    ...request,
    headers: { ...(authorization ? { authorization } : {}), ...request.headers },
  };
}

/** The status `app` answers a request from `address` with `authorization` (or none). */
async function statusFrom(
  app: FastifyInstance,
  address: string,
  authorization?: string,
  request: Partial<InjectOptions> = {},
): Promise<number> {
  return (await app.inject(from(address, authorization, request))).statusCode;
}

/** A sign-in from `address` with `token`. */
const signInWith = (token: string) => ({ method: 'POST', url: '/api/session', payload: { token } }) as const;

t.test(
  'guessing: after 10 failures in 10 minutes an address gets 429, the owner gets in elsewhere',
  async (t) => {
    const ta = await testApp(t);
    const guesser = '198.51.100.20';
    const elsewhere = '198.51.100.21';
    const agent = await createAgent(ta);
    const failures = async (address: string) =>
      (await ta.sql<{ failures: number }[]>`select failures from auth_failures where address = ${address}`)[0]
        ?.failures;

    // A browser signed in from the guesser's address before the guessing started.
    const signIn = await ta.app.inject(from(guesser, undefined, signInWith(ownerToken)));
    t.equal(signIn.statusCode, 201);
    const cookie = `${sessionCookie}=${signIn.cookies.find((c) => c.name === sessionCookie)?.value}`;

    // Wrong bearer tokens and failed sign-ins count alike.
    for (let i = 0; i < 6; i++) {
      t.equal(await statusFrom(ta.app, guesser, `Bearer hub_agent_guess${i}`), 401, `wrong token ${i + 1}`);
    }
    for (let i = 0; i < 4; i++) {
      const guess = signInWith(`guess-${i}-${'x'.repeat(24)}`);
      t.equal(await statusFrom(ta.app, guesser, undefined, guess), 401, `failed sign-in ${i + 1}`);
    }
    t.equal(await failures(guesser), 10, 'counted in the database');

    const refused = await ta.app.inject(from(guesser, 'Bearer hub_agent_guess11'));
    t.equal(refused.statusCode, 429, 'the eleventh attempt');
    t.match(refused.json(), { code: 'TOO_MANY_FAILURES', message: /try again in \d+ s/ });
    const retryAfter = Number(refused.headers['retry-after']);
    t.ok(retryAfter > 590 && retryAfter <= 600, `Retry-After ${retryAfter} s: the window's end`);
    const attempts: [string, string | undefined, Partial<InjectOptions>][] = [
      ['the right owner token: a right guess reads like a wrong one', `Bearer ${ownerToken}`, {}],
      ['an agent token', `Bearer ${agent.token}`, {}],
      ['signing in', undefined, signInWith(ownerToken)],
    ];
    for (const [what, authorization, request] of attempts) {
      t.equal(await statusFrom(ta.app, guesser, authorization, request), 429, `from there: ${what}`);
    }
    t.equal(
      await statusFrom(ta.app, guesser, undefined, { headers: { cookie } }),
      200,
      'a browser already signed in there keeps working',
    );
    t.equal(await failures(guesser), 10, 'refused attempts are not counted again: the window does not move');

    t.equal(await statusFrom(ta.app, elsewhere, `Bearer ${ownerToken}`), 200, 'the owner elsewhere');
    t.equal(
      await statusFrom(ta.app, elsewhere, undefined, signInWith(ownerToken)),
      201,
      'signs in elsewhere',
    );
    t.equal(await statusFrom(ta.app, elsewhere, `Bearer ${agent.token}`), 200, 'agents elsewhere');

    // Another process of the hub refuses the address too: the count is not in one process's memory.
    const other = await anotherProcess(t, ta);
    t.equal(await statusFrom(other, guesser, `Bearer ${ownerToken}`), 429, 'another process agrees');

    // The window over, the address may try again, and its next failure starts a new count.
    await ta.sql`update auth_failures set window_started_at = now() - interval '601 seconds' where address = ${guesser}`;
    t.equal(await statusFrom(ta.app, guesser, `Bearer ${ownerToken}`), 200, 'after the window');
    t.equal(await statusFrom(ta.app, guesser, 'Bearer hub_agent_again'), 401);
    t.equal(await failures(guesser), 1, 'a new window');
  },
);

t.test('guessing: TRUST_PROXY decides whose address is counted', async (t) => {
  const ta = await testApp(t, { env: { TRUST_PROXY: '127.0.0.1' } });
  const proxied = (client: string, authorization: string) =>
    statusFrom(ta.app, '127.0.0.1', authorization, { headers: { 'x-forwarded-for': client } });
  for (let i = 0; i < 10; i++) t.equal(await proxied('203.0.113.5', `Bearer wrong-${i}`), 401);
  t.equal(await proxied('203.0.113.5', `Bearer ${ownerToken}`), 429, 'the client behind the proxy');
  t.equal(await proxied('203.0.113.6', `Bearer ${ownerToken}`), 200, 'another client, same proxy');
  const untrusted = { headers: { 'x-forwarded-for': '203.0.113.5' } };
  t.equal(
    await statusFrom(ta.app, '192.0.2.1', `Bearer ${ownerToken}`, untrusted),
    200,
    'a header from a peer that is not the proxy names no one',
  );

  for (let i = 0; i < 10; i++) await statusFrom(ta.app, `2001:db8:7:7::${i + 1}`, `Bearer wrong-${i}`);
  t.equal(
    await statusFrom(ta.app, '2001:db8:7:7::99', `Bearer ${ownerToken}`),
    429,
    'an IPv6 client is its /64',
  );
  t.equal(
    await statusFrom(ta.app, '2001:db8:7:8::1', `Bearer ${ownerToken}`),
    200,
    'the next /64 is another',
  );
});

t.test(
  'guessing: the refusal is logged once per address and window, never with the token tried',
  async (t) => {
    const ta = await testApp(t);
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await anotherProcess(t, ta, { logger: { level: 'info', stream } });
    const secret = 'hub_agent_SECRETGUESS0123456789';
    for (const address of ['198.51.100.30', '198.51.100.31']) {
      for (let i = 0; i < 10; i++) await app.inject(from(address, `Bearer ${secret}${i}`));
      for (let i = 0; i < 20; i++) {
        t.equal(await statusFrom(app, address, `Bearer ${secret}`), 429);
      }
    }
    type Entry = { msg: string; address?: string; code?: string; res?: { statusCode: number } };
    const entries = lines.map((line) => JSON.parse(line) as Entry);
    const refusals = entries.filter((entry) => /too many failed sign-ins/.test(entry.msg));
    t.same(
      refusals.map((entry) => entry.address),
      ['198.51.100.30', '198.51.100.31'],
      'one refusal line per address for twenty refused requests each',
    );
    t.match(refusals[0], { level: 40, retry_after_s: Number });
    const perRequest = entries.filter(
      (entry) => entry.code === 'TOO_MANY_FAILURES' || entry.res?.statusCode === 429,
    );
    t.same(perRequest, [], 'the refused requests add no refusal or completion line of their own');
    t.notMatch(lines.join(''), /SECRETGUESS/, 'no line holds the token tried');
  },
);
