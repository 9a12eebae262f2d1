// The link shortener proxy against a fake Shlink (REST API v3, X-Api-Key, problem+json errors).
import t from 'tap';
import { createAgent, testApp } from '../../helpers/app.ts';
import { closedPort, fakeShlink, shlinkKey } from './fakes.ts';

t.test('not configured: { configured: false }', async (t) => {
  const ta = await testApp(t);
  for (const url of ['/api/shlink/version', '/api/shlink/recent']) {
    t.same((await ta.asOwner({ method: 'GET', url })).json(), { configured: false });
  }
  const create = await ta.asOwner({
    method: 'POST',
    url: '/api/shlink',
    payload: { long_url: 'https://example.com' },
  });
  t.same(create.json(), { configured: false });
});

t.test('version, recent links and creating one, with the API key; Shlink errors become ours', async (t) => {
  const shlink = await fakeShlink(t);
  const ta = await testApp(t, { env: { SHLINK_URL: shlink.url, SHLINK_API_KEY: shlinkKey } });
  const version = await ta.asOwner({ method: 'GET', url: '/api/shlink/version' });
  t.equal(version.statusCode, 200);
  t.match(version.json(), { configured: true, status: 'pass', version: '4.2.1' });

  const recent = await ta.asOwner({ method: 'GET', url: '/api/shlink/recent' });
  t.equal(recent.statusCode, 200, recent.body);
  t.match(recent.json(), {
    total: 1,
    items: [
      {
        short_code: 'abc12',
        short_url: 'https://s.example/abc12',
        long_url: 'https://example.com/old',
        visits: 3,
      },
    ],
  });
  const listed = shlink.requests.find((r) => r.url.startsWith('/rest/v3/short-urls'));
  t.equal(listed?.headers['x-api-key'], shlinkKey, 'the key goes in X-Api-Key');
  t.match(listed?.url, /orderBy=dateCreated-DESC/);

  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/shlink',
    payload: { long_url: 'https://example.com/new', slug: 'new-one', title: 'New', tags: ['hub'] },
  });
  t.equal(created.statusCode, 201, created.body);
  t.match(created.json(), {
    short_code: 'new-one',
    long_url: 'https://example.com/new',
    title: 'New',
    tags: ['hub'],
  });
  t.same(JSON.parse(shlink.requests.at(-1)?.body ?? '{}'), {
    longUrl: 'https://example.com/new',
    customSlug: 'new-one',
    title: 'New',
    tags: ['hub'],
  });
  const after = await ta.asOwner({ method: 'GET', url: '/api/shlink/recent' });
  t.equal(after.json().items[0].short_code, 'new-one', 'the new link shows at once, newest first');

  const taken = await ta.asOwner({
    method: 'POST',
    url: '/api/shlink',
    payload: { long_url: 'https://x.example', slug: 'new-one' },
  });
  t.equal(taken.statusCode, 400, 'a slug in use is the caller’s 400');
  t.match(taken.json(), {
    code: 'SHLINK_REJECTED',
    message: /Invalid custom slug.*already in use/,
    upstream: {
      status: 400,
      type: 'https://shlink.io/api/error/non-unique-slug',
      title: 'Invalid custom slug',
    },
  });
  const bad = await ta.asOwner({ method: 'POST', url: '/api/shlink', payload: { long_url: 'ftp://nope' } });
  t.equal(bad.statusCode, 400, 'the hub checks the URL itself');

  const agent = await createAgent(ta, { tier: 'owner' });
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/shlink/recent' })).statusCode, 200);
  t.equal(
    (
      await ta.asAgent(agent.token, {
        method: 'POST',
        url: '/api/shlink',
        payload: { long_url: 'https://a.example' },
      })
    ).statusCode,
    403,
    'creating is the owner’s',
  );
});

t.test('a wrong API key is a 502 carrying Shlink’s 401, never the hub’s 401', async (t) => {
  const shlink = await fakeShlink(t);
  const ta = await testApp(t, { env: { SHLINK_URL: shlink.url, SHLINK_API_KEY: 'wrong-key' } });
  const response = await ta.asOwner({ method: 'GET', url: '/api/shlink/recent' });
  t.equal(response.statusCode, 502);
  t.match(response.json(), {
    code: 'SHLINK_UPSTREAM_FAILED',
    message: /HTTP 401 Invalid API key/,
    upstream: { status: 401, type: 'https://shlink.io/api/error/invalid-api-key', title: 'Invalid API key' },
  });

  const port = await closedPort();
  const down = await testApp(t, {
    env: { SHLINK_URL: `http://127.0.0.1:${port}`, SHLINK_API_KEY: shlinkKey },
  });
  const refused = await down.asOwner({ method: 'GET', url: '/api/shlink/version' });
  t.equal(refused.statusCode, 502);
  t.match(refused.json(), { code: 'SHLINK_UPSTREAM_FAILED', message: /connection refused/ });
});
