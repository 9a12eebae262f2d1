// An integration the environment sets is tested in place like a stored one: the test button (a POST without a body)
// tries the settings in force, and its outcome is kept and shown as last_test, without storing a settings row.
import t from 'tap';
import { testApp } from '../../helpers/app.ts';
import { fakeShlink, shlinkKey } from '../dashboard/fakes.ts';

const shlink = await fakeShlink(t);

const entryOf = async (ta: Awaited<ReturnType<typeof testApp>>, kind: string) =>
  (await ta.asOwner({ method: 'GET', url: '/api/integrations' }))
    .json()
    .items.find((item: { kind: string }) => item.kind === kind);

t.test('a passing test of an environment-set integration is recorded as its last_test', async (t) => {
  const ta = await testApp(t, { env: { SHLINK_URL: shlink.url, SHLINK_API_KEY: shlinkKey } });
  t.match(await entryOf(ta, 'shlink'), { source: 'environment', last_test: null }, 'not tested yet');
  const tested = await ta.asOwner({ method: 'POST', url: '/api/integrations/shlink/test' });
  t.equal(tested.statusCode, 200);
  t.match(tested.json(), { ok: true, status: 200 });
  const entry = await entryOf(ta, 'shlink');
  t.match(entry, { source: 'environment', last_test: { ok: true, status: 200, message: String } });
  t.equal(entry.last_test.tested_at, tested.json().tested_at, 'the same outcome');
  t.same(await ta.sql`select kind from integrations`, [], 'no settings row is stored');
  t.notOk(JSON.stringify(entry).includes(shlinkKey));
});

t.test('a failing one too, and the next test replaces it', async (t) => {
  const ta = await testApp(t, { env: { SHLINK_URL: shlink.url, SHLINK_API_KEY: 'not-the-key' } });
  const failed = await ta.asOwner({ method: 'POST', url: '/api/integrations/shlink/test' });
  t.match(failed.json(), { ok: false, status: 401 });
  t.match(await entryOf(ta, 'shlink'), { last_test: { ok: false, status: 401 } });
  await ta.asOwner({ method: 'POST', url: '/api/integrations/shlink/test' });
  t.equal(
    (await ta.sql`select count(*)::int as n from integration_environment_tests`)[0].n,
    1,
    'one record per kind',
  );
  t.match(await entryOf(ta, 'weather'), { source: null, last_test: null }, 'other kinds are untouched');
});
