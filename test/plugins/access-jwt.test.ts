// The access-proxy login (Cf-Access-Jwt-Assertion) against a real key-set server on loopback, with RSA keys made
// here. Every refusal must be a plain 401 for the token alone, while the owner bearer token in the same request
// still gets in.
import { createHmac, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { loadConfig } from '../../config/index.ts';
import {
  type AccessLog,
  type AccessVerifier,
  type AccessVerifierOptions,
  createAccessVerifier,
} from '../../lib/access-jwt.ts';
import { type TestApp, testApp } from '../helpers/app.ts';
import { startUpstream } from '../helpers/upstream.ts';

const team = 'ops-team.cloudflareaccess.com';
const issuer = `https://${team}`;
const audience = '4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2';
const ownerEmail = 'owner@example.com';
const certsPath = '/cdn-cgi/access/certs';

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  jwk: JsonWebKey & { kid: string; alg: string; use: string };
}

function signingKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    kid,
    privateKey,
    publicKey,
    jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' },
  };
}

const teamKey = signingKey('team-key-1');
const strangerKey = signingKey('stranger-key');

const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWT; `signer` returns the signature bytes, or null for an unsigned token. */
function jwt(header: object, claims: object, signer: (input: string) => Buffer | null): string {
  const input = `${segment(header)}.${segment(claims)}`;
  return `${input}.${signer(input)?.toString('base64url') ?? ''}`;
}

const rs256 = (key: KeyObject) => (input: string) => sign('sha256', Buffer.from(input), key);

/** Claims shaped like the proxy's: an array audience, email, validity window, issuer. */
function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    aud: [audience],
    email: ownerEmail,
    exp: now + 600,
    iat: now,
    nbf: now,
    iss: issuer,
    sub: '7335d417-61da-459d-899c-0a01c76a2f94',
    type: 'app',
    ...overrides,
  };
}

const validToken = (overrides: Record<string, unknown> = {}) =>
  jwt({ alg: 'RS256', kid: teamKey.kid, typ: 'JWT' }, claims(overrides), rs256(teamKey.privateKey));

function accessEnv(certsUrl: string): Record<string, string> {
  return {
    ACCESS_TEAM_DOMAIN: team,
    ACCESS_AUDIENCE: audience,
    OWNER_EMAILS: `${ownerEmail}, second@example.com`,
    ACCESS_CERTS_URL: certsUrl,
  };
}

/** A key-set server publishing `keys` where the proxy publishes them. */
async function keySet(t: Test, keys: SigningKey[]) {
  return startUpstream(t, (request, response) => {
    if (request.url !== certsPath) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: keys.map((key) => key.jwk) }));
  });
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A verifier of the service's access settings for the key set at `url`, closed at the end of the test. */
function verifierFor(t: Test, url: string, options: AccessVerifierOptions): AccessVerifier {
  const access = loadConfig({ ...accessEnv(`${url}${certsPath}`), DATA_DIR: os.tmpdir() }).access.proxy;
  if (!access) throw new Error('the access settings did not load');
  const verifier = createAccessVerifier(access, options);
  t.teardown(() => verifier.close());
  return verifier;
}

const ownerRoute = { method: 'GET', url: '/api/agents' } as const;

async function assertRefused(t: Test, ta: TestApp, token: string, what: string): Promise<void> {
  const alone = await ta.anon({ ...ownerRoute, headers: { 'cf-access-jwt-assertion': token } });
  t.equal(alone.statusCode, 401, `${what}: refused`);
  t.match(
    alone.json(),
    { statusCode: 401, code: 'UNAUTHORIZED', error: 'Unauthorized' },
    `${what}: error body`,
  );
  const withBearer = await ta.asOwner({ ...ownerRoute, headers: { 'cf-access-jwt-assertion': token } });
  t.equal(withBearer.statusCode, 200, `${what}: the owner bearer token still works`);
}

t.test(
  'a valid proxy token is the owner; every bad one is refused while the bearer token still works',
  async (t) => {
    const server = await keySet(t, [teamKey]);
    const ta = await testApp(t, { env: accessEnv(`${server.url}${certsPath}`) });

    const ok = await ta.anon({ ...ownerRoute, headers: { 'cf-access-jwt-assertion': validToken() } });
    t.equal(ok.statusCode, 200, 'valid token: owner');
    t.same(ok.json(), { items: [], total: 0, limit: 50, offset: 0 });
    const write = await ta.anon({
      method: 'POST',
      url: '/api/agents',
      headers: { 'cf-access-jwt-assertion': validToken() },
      payload: { name: 'via-proxy' },
    });
    t.equal(write.statusCode, 201, 'the proxy login may use owner writes too');
    // The proxy adds its assertion to whatever the browser sends, a form planted in a page included.
    const formPost = await ta.anon({
      method: 'POST',
      url: '/api/agents',
      headers: { 'cf-access-jwt-assertion': validToken(), 'content-type': 'text/plain' },
      payload: JSON.stringify({ name: 'via-form' }),
    });
    t.equal(formPost.statusCode, 415, 'a form body is refused, as for the session cookie');
    const upper = await ta.anon({
      ...ownerRoute,
      headers: { 'cf-access-jwt-assertion': validToken({ email: 'Owner@Example.COM' }) },
    });
    t.equal(upper.statusCode, 200, 'emails compare without case');
    const second = await ta.anon({
      ...ownerRoute,
      headers: { 'cf-access-jwt-assertion': validToken({ email: 'second@example.com' }) },
    });
    t.equal(second.statusCode, 200, 'every listed email is an owner');

    const now = Math.floor(Date.now() / 1000);
    const { exp: _exp, ...noExpiry } = claims();
    const cases: [string, string][] = [
      ['expired', validToken({ iat: now - 7200, nbf: now - 7200, exp: now - 3600 })],
      ['not yet valid', validToken({ nbf: now + 3600, exp: now + 7200 })],
      ['wrong audience', validToken({ aud: ['someone-elses-application'] })],
      ['audience missing', validToken({ aud: undefined })],
      ['wrong issuer', validToken({ iss: 'https://other-team.cloudflareaccess.com' })],
      ['email not on the list', validToken({ email: 'intruder@example.com' })],
      ['no email', validToken({ email: undefined })],
      ['no expiry', jwt({ alg: 'RS256', kid: teamKey.kid }, noExpiry, rs256(teamKey.privateKey))],
      ['alg none', jwt({ alg: 'none', kid: teamKey.kid }, claims(), () => null)],
      [
        'alg none with a known kid and a stray signature',
        jwt({ alg: 'none', kid: teamKey.kid }, claims(), () => Buffer.from('x')),
      ],
      [
        'HS256 signed with the public key as HMAC secret',
        jwt({ alg: 'HS256', kid: teamKey.kid }, claims(), (input) =>
          createHmac('sha256', teamKey.publicKey.export({ type: 'spki', format: 'pem' }))
            .update(input)
            .digest(),
        ),
      ],
      ['RS256 without a signature', jwt({ alg: 'RS256', kid: teamKey.kid }, claims(), () => null)],
      ['unknown kid', jwt({ alg: 'RS256', kid: strangerKey.kid }, claims(), rs256(strangerKey.privateKey))],
      ['no kid', jwt({ alg: 'RS256' }, claims(), rs256(teamKey.privateKey))],
      [
        'signed by another key under a known kid',
        jwt({ alg: 'RS256', kid: teamKey.kid }, claims(), rs256(strangerKey.privateKey)),
      ],
      [
        'payload changed after signing',
        `${validToken().split('.')[0]}.${segment(claims({ email: 'x@y.z' }))}.${validToken().split('.')[2]}`,
      ],
      ['garbage', 'garbage'],
      ['three dots of nothing', '..'],
      ['non-JSON segments', 'abc.def.ghi'],
      ['a long junk header', 'x'.repeat(8000)],
    ];
    for (const [what, token] of cases) await assertRefused(t, ta, token, what);

    const noHeader = await ta.anon(ownerRoute);
    t.equal(noHeader.statusCode, 401, 'no credentials at all: 401');
  },
);

t.test('the key set is fetched once for many logins', async (t) => {
  const server = await keySet(t, [teamKey]);
  const ta = await testApp(t, { env: accessEnv(`${server.url}${certsPath}`) });
  for (let i = 0; i < 4; i++) {
    const response = await ta.anon({ ...ownerRoute, headers: { 'cf-access-jwt-assertion': validToken() } });
    t.equal(response.statusCode, 200);
  }
  t.equal(server.requests.length, 1, 'one fetch of the key set');
  t.equal(server.requests[0].url, certsPath, 'fetched from the configured certs URL');
  t.equal(server.requests[0].method, 'GET');

  await ta.anon({
    ...ownerRoute,
    headers: { 'cf-access-jwt-assertion': jwt({ alg: 'none', kid: 'other' }, claims(), () => null) },
  });
  await ta.anon({
    ...ownerRoute,
    headers: { 'cf-access-jwt-assertion': validToken({ iss: 'https://other-team.cloudflareaccess.com' }) },
  });
  t.equal(server.requests.length, 1, 'tokens of the wrong algorithm or issuer never make the hub fetch keys');
});

t.test('made-up key ids make the hub ask the key set at most once per cooldown', async (t) => {
  const published = [teamKey];
  const server = await keySet(t, published);
  // Long enough never to pass during this test.
  const verifier = verifierFor(t, server.url, { unknownKidCooldownMs: 10 * 60_000 });
  t.equal(await verifier.verify(validToken()), ownerEmail, 'the owner logs in');
  t.equal(server.requests.length, 1, 'one fetch for the key the set has');

  for (const kid of ['made-up-1', 'made-up-2', 'made-up-3', 'made-up-1', 'made-up-4']) {
    const token = jwt({ alg: 'RS256', kid }, claims(), rs256(strangerKey.privateKey));
    t.equal(await verifier.verify(token), null, `${kid}: refused`);
  }
  t.equal(server.requests.length, 2, 'five tokens with unknown key ids: one more fetch');

  const rotated = signingKey('team-key-2');
  published.push(rotated);
  const rotatedToken = jwt({ alg: 'RS256', kid: rotated.kid }, claims(), rs256(rotated.privateKey));
  t.equal(
    await verifier.verify(rotatedToken),
    null,
    'a key published during the cooldown is not asked for yet',
  );
  t.equal(server.requests.length, 2, 'no fetch during the cooldown');
  t.equal(await verifier.verify(validToken()), ownerEmail, 'a key the set has yielded is never held back');
  t.equal(server.requests.length, 2, 'and comes from the cache');
});

t.test('a rotated key is picked up once the cooldown has passed', async (t) => {
  const published = [teamKey];
  const server = await keySet(t, published);
  const cooldownMs = 50;
  const verifier = verifierFor(t, server.url, { unknownKidCooldownMs: cooldownMs });
  const madeUp = jwt({ alg: 'RS256', kid: 'made-up' }, claims(), rs256(strangerKey.privateKey));
  t.equal(await verifier.verify(madeUp), null, 'an unknown key id is refused');
  t.equal(server.requests.length, 1, 'after asking the key set');

  const rotated = signingKey('team-key-2');
  published.push(rotated);
  await sleep(cooldownMs * 2);
  const rotatedToken = jwt({ alg: 'RS256', kid: rotated.kid }, claims(), rs256(rotated.privateKey));
  t.equal(await verifier.verify(rotatedToken), ownerEmail, 'the new key is found');
  t.equal(server.requests.length, 2, 'with one more fetch');
  t.equal(await verifier.verify(rotatedToken), ownerEmail, 'and kept');
  t.equal(server.requests.length, 2);
});

t.test('a key set that is down fails closed', async (t) => {
  const port = await closedPort();
  const ta = await testApp(t, { env: accessEnv(`http://127.0.0.1:${port}${certsPath}`) });
  await assertRefused(t, ta, validToken(), 'key set down');
});

t.test('a key set that never answers fails closed within the time limit', { timeout: 30_000 }, async (t) => {
  const server = await startUpstream(t, () => {
    // Accept the request and never answer.
  });
  const ta = await testApp(t, { env: accessEnv(`${server.url}${certsPath}`) });
  await assertRefused(t, ta, validToken(), 'key set hanging');
  t.ok(server.requests.length >= 1, 'the hub did ask the hanging server');
});

t.test('refusals are logged with their reason and never the token', { timeout: 30_000 }, async (t) => {
  const server = await keySet(t, [teamKey]);
  const hanging = await startUpstream(t, () => undefined);
  const badJson = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"keys": [');
  });
  const failing = await startUpstream(t, (_request, response) => {
    response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
  });

  const lines: { level: string; details: Record<string, unknown>; message: string }[] = [];
  const log: AccessLog = {
    info: (details, message) => lines.push({ level: 'info', details: { ...details }, message }),
    debug: (details, message) => lines.push({ level: 'debug', details: { ...details }, message }),
  };
  const verifier = (url: string) => verifierFor(t, url, { log, timeoutMs: 500, responseTimeoutMs: 2_000 });

  const good = verifier(server.url);
  const expired = validToken({ exp: Math.floor(Date.now() / 1000) - 3600 });
  const unsigned = jwt({ alg: 'none', kid: teamKey.kid }, claims(), () => null);
  const stranger = validToken({ email: 'intruder@example.com' });
  t.equal(await good.verify(validToken()), ownerEmail);
  t.equal(await good.verify(expired), null);
  t.equal(await good.verify(unsigned), null);
  t.equal(await good.verify(stranger), null);
  t.equal(await verifier(hanging.url).verify(validToken()), null);
  t.equal(await verifier(badJson.url).verify(validToken()), null);
  t.equal(await verifier(failing.url).verify(validToken()), null);

  t.same(
    lines.map((line) => [line.level, line.details.reason]),
    [
      ['debug', undefined],
      ['info', 'FAST_JWT_EXPIRED'],
      ['info', 'algorithm'],
      ['info', 'email'],
      ['info', 'timeout'],
      ['info', 'FAST_JWT_KEY_FETCHING_ERROR'],
      ['info', 'FAST_JWT_KEY_FETCHING_ERROR'],
    ],
  );
  t.equal(lines[6].details.cause1_code, 'JWKS_REQUEST_FAILED', 'an error status from the key set is named');
  const logged = JSON.stringify(lines);
  for (const token of [validToken(), expired, unsigned, stranger]) {
    t.notOk(logged.includes(token.split('.')[2] || token), 'no token (nor its signature) in the log');
  }
});
