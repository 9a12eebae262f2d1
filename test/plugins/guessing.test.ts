// Guessing is throttled per client address (plugins/auth.ts): failed sign-ins and wrong bearer tokens are counted
// in the database; past the limit an address gets 429 for every attempt until its window ends, while the owner gets
// in from anywhere else. The refusal is logged once per address and window, never with what was tried.
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import t from 'tap';
import { failureKey, sessionCookie } from '../../plugins/auth.ts';
import { anotherProcess, createAgent, ownerToken, testApp } from '../helpers/app.ts';

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

t.test('guessing: a route with a secret of its own judges it, and counts what it refuses', async (t) => {
  const metricsToken = 'scrape-token-0123456789abcdef';
  const webhookSecret = 'webhook-secret-0123456789abcdef';
  const ta = await testApp(t, { env: { METRICS_TOKEN: metricsToken, WEBHOOK_SECRET: webhookSecret } });
  const scraper = '198.51.100.40';
  for (let i = 0; i < 12; i++) {
    t.equal(await statusFrom(ta.app, scraper, `Bearer ${metricsToken}`, { url: '/api/metrics' }), 200);
  }
  const delivery = (secret: string, i: number) => ({
    method: 'POST',
    url: '/api/ingest/generic',
    headers: { 'content-type': 'application/json' },
    payload: { url: `https://example.org/${i}` },
    authorization: `Bearer ${secret}`,
  });
  const bookmarks = '198.51.100.41';
  for (let i = 0; i < 12; i++) {
    const { authorization, ...request } = delivery(webhookSecret, i);
    t.equal(await statusFrom(ta.app, bookmarks, authorization, request as Partial<InjectOptions>), 202);
  }
  t.same(
    await ta.sql`select address from auth_failures where address in (${scraper}, ${bookmarks})`,
    [],
    'a scraper and a bookmark service with their own right secrets are never counted',
  );

  const cases: [string, string, (i: number) => [string, Partial<InjectOptions>]][] = [
    ['a wrong METRICS_TOKEN', '198.51.100.42', (i) => [`Bearer wrong-${i}`, { url: '/api/metrics' }]],
    [
      'a wrong webhook secret',
      '198.51.100.43',
      (i) => {
        const { authorization, ...request } = delivery(`wrong-${i}`, i);
        return [authorization, request as Partial<InjectOptions>];
      },
    ],
    // GET /api/session tells a right owner token from a wrong one: guesses there count like anywhere.
    [
      'a wrong bearer on a public route',
      '198.51.100.44',
      (i) => [`Bearer wrong-${i}`, { url: '/api/session' }],
    ],
  ];
  for (const [what, address, attempt] of cases) {
    for (let i = 0; i < 10; i++) {
      const [authorization, request] = attempt(i);
      t.not(await statusFrom(ta.app, address, authorization, request), 429, `${what} ${i + 1}`);
    }
    const [authorization, request] = attempt(10);
    t.equal(
      await statusFrom(ta.app, address, authorization, request),
      429,
      `${what}: the eleventh is refused`,
    );
  }
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
