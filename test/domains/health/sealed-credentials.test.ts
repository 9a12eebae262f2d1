// A health check's basic-auth password is sealed at rest under the hub's secret key (as the integrations' secrets
// are): the table holds no plaintext, the check still authenticates, a sealed value moved to another service does
// not open there, and passwords stored in plaintext before are sealed when the hub starts (or on first read). An http
// check's header values likewise: sealed, sent, moved from plaintext at start, re-sealed by rotation.
import t from 'tap';
import { buildApp } from '../../../app.ts';
import { checkHeaderPlace } from '../../../domains/health/credentials.ts';
import { checkServices } from '../../../domains/health/jobs.ts';
import { checkSecretKey, resealSecrets, secretKeyOf } from '../../../domains/integrations/keyring.ts';
import { newSecretKey, openSecret, SecretUnreadableError } from '../../../lib/secrets.ts';
import { hub } from '../../../modules.ts';
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
/** A start of the hub on this database, as after an upgrade. */
const restart = async () => {
  const app = await buildApp({
    config: ta.config,
    sql: ta.sql,
    databaseUrl: ta.db.url,
    ownerToken,
    worker: 'off',
    cron: false,
  });
  await app.ready();
  await app.close();
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
  t.match(await state(second.id), { state: 'down', message: /cannot be decrypted.*enter them again/ });
  t.equal(web.requests.length, before, 'nothing is sent without the password');
});

t.test('passwords stored in plaintext before are sealed at start, and keep working', async (t) => {
  const service = await create('Legacy', '/d');
  // As a row written before sealing: the plaintext column set, no sealed value.
  await ta.sql`
    update monitored_services set basic_auth_password = ${password}, basic_auth_sealed = null
    where id = ${service.id}`;

  await restart();
  const [row] = await ta.sql`
    select basic_auth_password, basic_auth_sealed from monitored_services where id = ${service.id}`;
  t.equal(row.basic_auth_password, null, 'the plaintext is gone');
  t.match(row.basic_auth_sealed, /^v1:/);
  t.notMatch(await tableText(), password);
  const sealedBefore = row.basic_auth_sealed;
  await restart();
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
    checkSecretKey(ta.sql, { dataDir: `${ta.dataDir}/elsewhere`, secretKey: null }, hub.sealed),
    /stored integration secret\(s\) \(.*health\.basic_auth_password:/,
    'a missing key with a sealed check password stops the start, naming it',
  );
});

const apiKey = 'h34der-v4lue-never-stored';
const keyed = await startUpstream(t, (request, response) => {
  response.writeHead(request.headers['x-api-key'] === apiKey ? 200 : 403).end();
});
async function createWithHeader(name: string) {
  const response = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name, kind: 'http', url: `${keyed.url}/${name}`, headers: { 'X-Api-Key': apiKey } },
  });
  t.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string };
}

t.test('header values are sealed at rest, sent by the check, and covered by the key check', async (t) => {
  const service = await createWithHeader('headers');
  const [row] = await ta.sql`select headers, headers_sealed from monitored_services where id = ${service.id}`;
  t.equal(row.headers, null, 'no plaintext headers');
  t.match(row.headers_sealed, { 'x-api-key': /^v1:/ }, 'the name readable, the value sealed');
  t.notMatch(await tableText(), apiKey, 'the value is nowhere in the table');
  t.match((await state(service.id)) as unknown, { headers: { set: true, names: ['x-api-key'] } });

  await checkServices(deps, { ids: [service.id] });
  t.match(await state(service.id), { state: 'up', message: 'HTTP 200' });
  t.equal(keyed.requests.at(-1)?.headers['x-api-key'], apiKey, 'the opened value is sent');

  await t.rejects(
    checkSecretKey(ta.sql, { dataDir: `${ta.dataDir}/elsewhere-headers`, secretKey: null }, hub.sealed),
    /health\.header:/,
    'a missing key with a sealed header stops the start, naming it',
  );
});

t.test(
  'headers stored in plaintext before are sealed at start, or by the first round that reads them',
  async (t) => {
    const service = await createWithHeader('legacy-headers');
    const legacy = async () =>
      ta.sql`
      update monitored_services set headers = ${ta.sql.json({ 'x-api-key': apiKey })}, headers_sealed = null
      where id = ${service.id}`;
    const stored = async () =>
      (await ta.sql`select headers, headers_sealed from monitored_services where id = ${service.id}`)[0];
    await legacy();
    t.match((await state(service.id)) as unknown, { headers: { set: true, names: ['x-api-key'] } });
    await restart();
    t.match(await stored(), { headers: null, headers_sealed: { 'x-api-key': /^v1:/ } });
    t.notMatch(await tableText(), apiKey);
    await checkServices(deps, { ids: [service.id] });
    t.match(await state(service.id), { state: 'up' });

    await legacy();
    await checkServices(deps, { ids: [service.id] });
    t.match(await state(service.id), { state: 'up' }, 'the plaintext value is still sent');
    t.match(
      await stored(),
      { headers: null, headers_sealed: { 'x-api-key': /^v1:/ } },
      'sealed on first read',
    );
  },
);

t.test('rotation re-seals header values under the new key', async (t) => {
  // The password moved to another service above would stop the rotation (all or nothing): that service goes.
  await ta.sql`delete from monitored_services where name = 'Second'`;
  const service = await createWithHeader('rotated-headers');
  const { key } = await secretKeyOf(ta.config.server);
  const next = newSecretKey();
  const place = checkHeaderPlace(service.id, 'x-api-key');
  t.ok((await resealSecrets(ta.sql, key, next, hub.sealed)) >= 1);
  const [row] = await ta.sql`select headers_sealed from monitored_services where id = ${service.id}`;
  const sealed = row.headers_sealed['x-api-key'];
  t.equal(openSecret(next, place, sealed), apiKey);
  t.throws(() => openSecret(key, place, sealed), SecretUnreadableError);
});
