// A health check's basic-auth password is sealed at rest under the hub's secret key (as the integrations' secrets
// are): the table holds no plaintext, the check still authenticates, a sealed value moved to another service does
// not open there, and passwords stored in plaintext before are sealed when the hub starts (or on first read).
import t from 'tap';
import { buildApp } from '../../../app.ts';
import { checkServices } from '../../../domains/health/jobs.ts';
import { checkSecretKey } from '../../../domains/integrations/keyring.ts';
import { ownerToken, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const password = 'pl41nt3xt-never-stored';
const expected = `Basic ${Buffer.from(`hubuser:${password}`).toString('base64')}`;
const web = await startUpstream(t, (request, response) => {
  response.writeHead(request.headers.authorization === expected ? 200 : 401).end();
});
const ta = await testApp(t);
const deps = { sql: ta.sql, config: ta.config };

async function create(name: string, path: string) {
  const response = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name, kind: 'http', url: `${web.url}${path}`, basic_auth: { username: 'hubuser', password } },
  });
  t.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string };
}
const state = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/services/${id}` })).json() as {
    state: string;
    message: string;
    basic_auth: { set: boolean };
  };
const tableText = async () =>
  (await ta.sql`select row_to_json(s)::text as text from monitored_services s`)
    .map((row) => row.text)
    .join('\n');

t.test('the column holds no plaintext, and the check still authenticates', async (t) => {
  const service = await create('Sealed', '/a');
  const [row] = await ta.sql`
    select basic_auth_username, basic_auth_password, basic_auth_sealed from monitored_services
    where id = ${service.id}`;
  t.equal(row.basic_auth_username, 'hubuser');
  t.equal(row.basic_auth_password, null, 'no plaintext column value');
  t.match(row.basic_auth_sealed, /^v1:/, 'sealed');
  t.notMatch(await tableText(), password, 'the password is nowhere in the table');
  t.notMatch(await tableText(), Buffer.from(password).toString('base64'));
  t.same((await state(service.id)).basic_auth, { set: true }, 'write-only: shown as set');

  await checkServices(deps, { ids: [service.id] });
  t.match(await state(service.id), { state: 'up', message: 'HTTP 200' });
  t.equal(web.requests.at(-1)?.headers.authorization, expected, 'the opened password is sent');
});

t.test('a sealed password moved to another service does not open there', async (t) => {
  const first = await create('First', '/b');
  const second = await create('Second', '/c');
  await ta.sql`
    update monitored_services set basic_auth_sealed = (
      select basic_auth_sealed from monitored_services where id = ${first.id})
    where id = ${second.id}`;
  const before = web.requests.length;
  await checkServices(deps, { ids: [second.id] });
  t.match(await state(second.id), { state: 'down', message: /cannot be decrypted.*enter it again/ });
  t.equal(web.requests.length, before, 'nothing is sent without the password');
});

t.test('passwords stored in plaintext before are sealed at start, and keep working', async (t) => {
  const service = await create('Legacy', '/d');
  // As a row written before sealing: the plaintext column set, no sealed value.
  await ta.sql`
    update monitored_services set basic_auth_password = ${password}, basic_auth_sealed = null
    where id = ${service.id}`;

  const restarted = await buildApp({
    config: ta.config,
    sql: ta.sql,
    databaseUrl: ta.db.url,
    ownerToken,
    worker: 'off',
    cron: false,
  });
  await restarted.ready();
  await restarted.close();
  const [row] = await ta.sql`
    select basic_auth_password, basic_auth_sealed from monitored_services where id = ${service.id}`;
  t.equal(row.basic_auth_password, null, 'the plaintext is gone');
  t.match(row.basic_auth_sealed, /^v1:/);
  t.notMatch(await tableText(), password);
  const sealedBefore = row.basic_auth_sealed;
  const again = await buildApp({
    config: ta.config,
    sql: ta.sql,
    databaseUrl: ta.db.url,
    ownerToken,
    worker: 'off',
    cron: false,
  });
  await again.ready();
  await again.close();
  const [unchanged] = await ta.sql`select basic_auth_sealed from monitored_services where id = ${service.id}`;
  t.equal(unchanged.basic_auth_sealed, sealedBefore, 'a second start changes nothing');

  await checkServices(deps, { ids: [service.id] });
  t.match(await state(service.id), { state: 'up' });
  t.equal(web.requests.at(-1)?.headers.authorization, expected);

  // A start that could not seal it (the database away): the first round of checks that reads it does.
  await ta.sql`
    update monitored_services set basic_auth_password = ${password}, basic_auth_sealed = null
    where id = ${service.id}`;
  await checkServices(deps, { ids: [service.id] });
  t.match(await state(service.id), { state: 'up' }, 'the check authenticates');
  const [afterRead] = await ta.sql`
    select basic_auth_password, basic_auth_sealed from monitored_services where id = ${service.id}`;
  t.equal(afterRead.basic_auth_password, null, 'sealed on first read');
  t.match(afterRead.basic_auth_sealed, /^v1:/);
});

t.test('the start-up key check covers sealed check passwords', async (t) => {
  await create('Keyed', '/e');
  await t.rejects(
    checkSecretKey(ta.sql, { dataDir: `${ta.dataDir}/elsewhere`, secretKey: null }),
    /stored integration secret\(s\) \(.*health\.basic_auth_password:/,
    'a missing key with a sealed check password stops the start, naming it',
  );
});
