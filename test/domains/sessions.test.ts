// Browser sessions: bound to the owner token they were made with, listed with where they came from, ended one by
// one or everywhere. Sign-in itself (the cookie's attributes, Origin checks) is tested in test/web/server.test.ts.
import t from 'tap';
import { sessionCookie } from '../../plugins/auth.ts';
import { anotherProcess, ownerToken, type TestApp, testApp } from '../helpers/app.ts';
import { absentId } from '../helpers/routes.ts';

const own = { origin: 'http://localhost:80', host: 'localhost:80' };

/** Signs a browser in from `address` with `agent` as its user agent; its cookie header. */
async function signIn(ta: TestApp, address: string, agent: string): Promise<string> {
  const response = await ta.anon({
    method: 'POST',
    url: '/api/session',
    payload: { token: ownerToken },
    headers: { 'user-agent': agent },
    remoteAddress: address,
  });
  if (response.statusCode !== 201) throw new Error(`sign-in failed: ${response.body}`);
  const cookie = response.cookies.find((c) => c.name === sessionCookie);
  return `${sessionCookie}=${cookie?.value}`;
}

const signedIn = async (ta: TestApp, cookie: string) =>
  (await ta.anon({ method: 'GET', url: '/api/session', headers: { cookie } })).json().signed_in;

t.test('a new owner token ends every session made with the old one', async (t) => {
  const ta = await testApp(t);
  const cookie = await signIn(ta, '192.0.2.10', 'Firefox');
  t.equal(await signedIn(ta, cookie), true);

  // The hub restarted with another OWNER_TOKEN, on the same database.
  const rotated = await anotherProcess(t, ta, { ownerToken: 'a-new-owner-token-0123456789abcdef' });
  const state = await rotated.inject({ method: 'GET', url: '/api/session', headers: { cookie } });
  t.same(state.json(), { signed_in: false, via: null, expires_at: null }, 'the old session is over');
  const jobs = await rotated.inject({ method: 'GET', url: '/api/jobs', headers: { cookie } });
  t.equal(jobs.statusCode, 401, 'and reaches nothing');
  const listed = await rotated.inject({
    method: 'GET',
    url: '/api/sessions',
    headers: { authorization: 'Bearer a-new-owner-token-0123456789abcdef' },
  });
  t.same(listed.json(), { items: [], total: 0 }, 'and is not listed');

  const [row] = await ta.sql<{ owner_digest: Buffer }[]>`select owner_digest from browser_sessions`;
  t.notOk(row.owner_digest.toString('utf8').includes(ownerToken), 'the token itself is not stored');
  t.notOk(row.owner_digest.toString('hex').includes(Buffer.from(ownerToken).toString('hex')));
  t.equal(await signedIn(ta, cookie), true, 'the process still holding the old token still knows it');
});

t.test('GET /api/sessions lists the live sessions; DELETE ends one, or all', async (t) => {
  const ta = await testApp(t);
  const laptop = await signIn(ta, '192.0.2.11', 'Firefox on the laptop');
  const phone = await signIn(ta, '2001:db8::12', 'Safari on the phone');
  const tablet = await signIn(ta, '192.0.2.13', 'x'.repeat(2000));
  await ta.sql`update browser_sessions set expires_at = now() - interval '1 second' where user_agent like 'xxx%'`;
  t.equal(await signedIn(ta, tablet), false, 'an expired one is over');

  const asLaptop = await ta.anon({ method: 'GET', url: '/api/sessions', headers: { cookie: laptop } });
  t.equal(asLaptop.statusCode, 200);
  const { items, total } = asLaptop.json();
  t.equal(total, 2, 'the live sessions only');
  t.same(
    items.map((item: Record<string, unknown>) => [item.address, item.user_agent, item.current]).sort(),
    [
      ['192.0.2.11', 'Firefox on the laptop', true],
      ['2001:db8::12', 'Safari on the phone', false],
    ],
    'where each came from, and which is this one',
  );
  for (const item of items) {
    t.same(Object.keys(item).sort(), [
      'address',
      'created_at',
      'current',
      'expires_at',
      'id',
      'last_used_at',
      'user_agent',
    ]);
    t.ok(Date.parse(item.last_used_at) >= Date.parse(item.created_at));
  }
  t.notMatch(asLaptop.body, new RegExp(laptop.split('=')[1]), 'never the secret');
  const viaBearer = await ta.asOwner({ method: 'GET', url: '/api/sessions' });
  t.notOk(
    viaBearer.json().items.some((item: { current: boolean }) => item.current),
    'a bearer request is no session',
  );

  const [{ count: stored }] = await ta.sql<{ count: number }[]>`
    select count(*)::int as count from browser_sessions where length(user_agent) = 500`;
  t.equal(stored, 1, 'a long user agent is kept to 500 characters');

  // Last use is recorded, at most once a minute.
  await ta.sql`update browser_sessions set last_used_at = now() - interval '1 hour'`;
  await ta.anon({ method: 'GET', url: '/api/spaces', headers: { cookie: phone } });
  const phoneItem = (await ta.asOwner({ method: 'GET', url: '/api/sessions' }))
    .json()
    .items.find((item: { user_agent: string }) => item.user_agent.startsWith('Safari'));
  t.ok(Date.now() - Date.parse(phoneItem.last_used_at) < 60_000, 'the phone was just used');

  const endPhone = await ta.anon({
    method: 'DELETE',
    url: `/api/sessions/${phoneItem.id}`,
    headers: { cookie: laptop, ...own },
  });
  t.equal(endPhone.statusCode, 204);
  t.notOk(endPhone.headers['set-cookie'], "ending another session leaves this browser's cookie alone");
  t.equal(await signedIn(ta, phone), false, 'the phone is signed out');
  t.equal(await signedIn(ta, laptop), true, 'the laptop is not');
  const again = await ta.asOwner({ method: 'DELETE', url: `/api/sessions/${phoneItem.id}` });
  t.same({ status: again.statusCode, code: again.json().code }, { status: 404, code: 'SESSION_NOT_FOUND' });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/sessions/${absentId}` })).statusCode, 404);

  const other = await signIn(ta, '192.0.2.14', 'Chromium');
  const everywhere = await ta.anon({
    method: 'DELETE',
    url: '/api/sessions',
    headers: { cookie: laptop, ...own },
  });
  t.equal(everywhere.statusCode, 204);
  t.match(String(everywhere.headers['set-cookie']), /hub_session=;/, 'this browser forgets its cookie');
  t.equal(await signedIn(ta, laptop), false, 'signed out here');
  t.equal(await signedIn(ta, other), false, 'and everywhere else');
  const [{ count }] = await ta.sql<{ count: number }[]>`select count(*)::int as count from browser_sessions`;
  t.equal(count, 0, 'no session is left');
});

t.test('ending the current session by its id clears its cookie', async (t) => {
  const ta = await testApp(t);
  const cookie = await signIn(ta, '192.0.2.20', 'Firefox');
  const [item] = (await ta.anon({ method: 'GET', url: '/api/sessions', headers: { cookie } })).json().items;
  const ended = await ta.anon({
    method: 'DELETE',
    url: `/api/sessions/${item.id}`,
    headers: { cookie, ...own },
  });
  t.equal(ended.statusCode, 204);
  t.match(String(ended.headers['set-cookie']), /hub_session=;/);
  t.equal(await signedIn(ta, cookie), false);
});
