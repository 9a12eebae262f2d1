// Serving the web app and browser sessions, over HTTP: caching and security headers, the palette in index.html,
// the session cookie's flags, expiry and sign-out, the Origin check on cookie writes, TRUST_PROXY and Secure.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { generate, typesFile } from '../../scripts/web-api-types.ts';
import { ownerToken, testApp } from '../helpers/app.ts';

const ta = await testApp(t);
const assets = path.resolve(import.meta.dirname, '..', '..', 'web', 'dist', 'assets');

async function signIn(app = ta, headers: Record<string, string> = {}) {
  const response = await app.anon({
    method: 'POST',
    url: '/api/session',
    payload: { token: ownerToken },
    headers,
  });
  const cookie = response.cookies.find((c) => c.name === 'hub_session');
  return { response, cookie, header: cookie ? `hub_session=${cookie.value}` : '' };
}

t.test('index.html: every path outside /api, never cached, palette and strict CSP', async (t) => {
  for (const url of ['/', '/knowledge/page/123', '/settings?tab=x']) {
    const response = await ta.anon({ method: 'GET', url });
    t.equal(response.statusCode, 200, url);
    t.match(response.headers['content-type'], /text\/html/);
    t.equal(response.headers['cache-control'], 'no-cache');
  }
  await ta.asOwner({ method: 'PUT', url: '/api/theme', payload: { background: '#123456' } });
  const response = await ta.anon({ method: 'GET', url: '/' });
  const style = /<style>(:root\{[^<]*\})<\/style>/.exec(response.body)?.[1];
  t.ok(style, 'the palette is inline');
  t.match(style, /--background:#123456/);
  t.match(style, /--text-muted:#/);
  const hash = createHash('sha256')
    .update(style as string)
    .digest('base64');
  const csp = String(response.headers['content-security-policy']);
  t.match(csp, `style-src 'self' 'sha256-${hash}'`, 'the one inline style is allowed by its hash');
  t.match(csp, "script-src 'self';");
  t.notMatch(csp, 'unsafe-inline');
  t.match(csp, "img-src 'self' data:");
  t.match(csp, "frame-ancestors 'none'");
  t.match(csp, "form-action 'none'", 'no native form submits anywhere');
  t.equal(response.headers['referrer-policy'], 'same-origin');
  t.notMatch(response.body, /<script>|<script [^>]*>[^<]/, 'no inline script');
  await ta.asOwner({ method: 'DELETE', url: '/api/theme' });
});

t.test('assets: immutable for a year; a missing one is 404; /api stays JSON', async (t) => {
  const file = (await readdir(assets)).find((name) => name.endsWith('.js'));
  const asset = await ta.anon({ method: 'GET', url: `/assets/${file}` });
  t.equal(asset.statusCode, 200);
  t.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.match(asset.headers['content-type'], /javascript/);
  const missing = await ta.anon({ method: 'GET', url: '/assets/nothing-here-123.js' });
  t.equal(missing.statusCode, 404);
  t.notMatch(missing.body, /<html/);
  const api = await ta.anon({ method: 'GET', url: '/api/no-such-route' });
  t.equal(api.statusCode, 404);
  t.equal(api.json().code, 'NOT_FOUND');
});

t.test('sign in: an HttpOnly, SameSite=Strict session cookie kept server-side', async (t) => {
  const wrong = await ta.anon({ method: 'POST', url: '/api/session', payload: { token: 'x'.repeat(40) } });
  t.equal(wrong.statusCode, 401);
  t.equal(wrong.json().code, 'OWNER_TOKEN_INVALID');
  t.equal(wrong.cookies.length, 0);
  const { response, cookie, header } = await signIn();
  t.equal(response.statusCode, 201);
  t.equal(response.json().via, 'session');
  t.ok(cookie?.httpOnly);
  t.equal(cookie?.sameSite, 'Strict');
  t.equal(cookie?.path, '/');
  t.notOk(cookie?.secure, 'not Secure over plain http');
  const [row] = await ta.sql`select count(*)::int as n from browser_sessions`;
  t.ok(row.n >= 1, 'stored server-side');
  const stored = await ta.sql`select secret_hash from browser_sessions`;
  t.notOk(
    stored.some((r) => r.secret_hash.toString() === cookie?.value),
    'only a hash of the secret is kept',
  );

  const state = await ta.anon({ method: 'GET', url: '/api/session', headers: { cookie: header } });
  t.same(
    { ...state.json(), expires_at: typeof state.json().expires_at },
    { signed_in: true, via: 'session', expires_at: 'string' },
  );
  const owned = await ta.anon({ method: 'GET', url: '/api/jobs', headers: { cookie: header } });
  t.equal(owned.statusCode, 200, 'the cookie reaches owner-only routes');
  const bearer = await ta.asOwner({ method: 'GET', url: '/api/session' });
  t.same(bearer.json(), { signed_in: true, via: 'bearer', expires_at: null });
  const nobody = await ta.anon({ method: 'GET', url: '/api/session' });
  t.same(nobody.json(), { signed_in: false, via: null, expires_at: null });
});

t.test('cookie writes must come from the hub itself', async (t) => {
  const { header } = await signIn();
  const body = { method: 'POST' as const, url: '/api/spaces', payload: { name: 'from-a-form' } };
  const foreign = await ta.anon({ ...body, headers: { cookie: header, origin: 'https://evil.example' } });
  t.equal(foreign.statusCode, 403);
  t.equal(foreign.json().code, 'ORIGIN_REFUSED');
  const none = await ta.anon({ ...body, headers: { cookie: header } });
  t.equal(none.statusCode, 403, 'no Origin is refused too');
  const own = await ta.anon({
    ...body,
    headers: { cookie: header, origin: 'http://localhost:80', host: 'localhost:80' },
  });
  t.equal(own.statusCode, 201);
  const read = await ta.anon({
    method: 'GET',
    url: '/api/spaces',
    headers: { cookie: header, origin: 'https://evil.example' },
  });
  t.equal(read.statusCode, 200, 'reads are not checked');
  const signInElsewhere = await ta.anon({
    method: 'POST',
    url: '/api/session',
    payload: { token: ownerToken },
    headers: { origin: 'https://evil.example' },
  });
  t.equal(signInElsewhere.statusCode, 403, 'another site cannot sign this browser in');
});

t.test('sign out ends the session; an expired session identifies no one', async (t) => {
  const { header } = await signIn();
  const out = await ta.anon({
    method: 'DELETE',
    url: '/api/session',
    headers: { cookie: header, origin: 'http://localhost:80', host: 'localhost:80' },
  });
  t.equal(out.statusCode, 204);
  t.match(String(out.headers['set-cookie']), /hub_session=;.*Expires=Thu, 01 Jan 1970/);
  const after = await ta.anon({ method: 'GET', url: '/api/jobs', headers: { cookie: header } });
  t.equal(after.statusCode, 401);

  const second = await signIn();
  await ta.sql`update browser_sessions set expires_at = now() - interval '1 second'`;
  const expired = await ta.anon({ method: 'GET', url: '/api/session', headers: { cookie: second.header } });
  t.same(expired.json(), { signed_in: false, via: null, expires_at: null });
});

t.test('Secure when the request came over https through a trusted proxy', async (t) => {
  const trusted = await testApp(t, { env: { TRUST_PROXY: '127.0.0.1' } });
  const viaProxy = await signIn(trusted, { 'x-forwarded-proto': 'https' });
  t.ok(viaProxy.cookie?.secure, 'Secure behind a trusted https proxy');
  const untrusted = await signIn(ta, { 'x-forwarded-proto': 'https' });
  t.notOk(untrusted.cookie?.secure, 'an untrusted X-Forwarded-Proto is ignored');
});

t.test("the app's API types are generated from the current OpenAPI document", async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-web-api-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await generate(path.join(dir, 'openapi.json'), path.join(dir, 'api.d.ts'));
  const fresh = await readFile(path.join(dir, 'api.d.ts'), 'utf8');
  t.ok(
    fresh === (await readFile(typesFile, 'utf8')),
    'web/src/api.d.ts is current (else run npm run web:api)',
  );
});
