// Owner-configured checks: credentials written into a service URL become its basic auth, kept apart from the URL,
// sent by the check (to that origin only) and never shown, to the owner or to agents; cloud metadata is refused in
// a definition and at every redirect hop of a check, and no socket is ever opened outside loopback. Services stored
// with credentials in their URL before are moved over by the migration.
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { migrate, migrationsDir } from '../../../lib/migrate.ts';
import { setTestConnectGate } from '../../../lib/safe-fetch.ts';
import { createAgent, testApp, testDatabase } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const dialled: string[] = [];
setTestConnectGate((address) => {
  dialled.push(address);
  if (!address.startsWith('127.')) throw new Error(`test gate: refusing to open a socket to ${address}`);
});
t.teardown(() => setTestConnectGate(null));

const expected = `Basic ${Buffer.from('hubuser:s:cret@1').toString('base64')}`;
// Answers 200 only with the expected basic auth; /away redirects to `elsewhere`, /meta to cloud metadata.
const elsewhere = await startUpstream(t, (_request, response) => response.writeHead(200).end('elsewhere'));
const web = await startUpstream(t, (request, response) => {
  if (request.url === '/away') return void response.writeHead(302, { location: `${elsewhere.url}/` }).end();
  if (request.url === '/meta') {
    return void response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
  }
  if (request.url === '/meta-name') {
    return void response.writeHead(302, { location: 'http://metadata.google.internal/' }).end();
  }
  if (request.headers.authorization !== expected) return void response.writeHead(401).end();
  response.writeHead(200).end('private');
});
const ta = await testApp(t);
const deps = { sql: ta.sql, config: ta.config };
const secret = 's:cret@1';
const withCredentials = `http://hubuser:${encodeURIComponent(secret)}@127.0.0.1:${web.port}/private`;

async function create(payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url: '/api/health/services', payload });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.body}`);
  return response.json();
}
const read = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/services/${id}` })).json();
const stored = async (id: string) =>
  (
    await ta.sql`
      select url, basic_auth_username, basic_auth_password, basic_auth_sealed is not null as sealed
      from monitored_services where id = ${id}`
  )[0];

t.test('credentials in a URL become basic auth, stored apart and never shown', async (t) => {
  const service = await create({ name: 'Private', kind: 'http', url: withCredentials });
  t.equal(service.url, `http://127.0.0.1:${web.port}/private`, 'the URL is kept without them');
  t.same(service.basic_auth, { set: true });
  t.same(await stored(service.id), {
    url: `http://127.0.0.1:${web.port}/private`,
    basic_auth_username: 'hubuser',
    basic_auth_password: null,
    sealed: true,
  });
  const reader = await createAgent(ta, { tier: 'read' });
  const views = [
    await ta.asOwner({ method: 'GET', url: '/api/health/services' }),
    await ta.asOwner({ method: 'GET', url: `/api/health/services/${service.id}` }),
    await ta.asAgent(reader.token, { method: 'GET', url: '/api/health/services' }),
    await ta.asAgent(reader.token, { method: 'GET', url: `/api/health/services/${service.id}` }),
  ];
  for (const view of views) {
    t.equal(view.statusCode, 200);
    t.notMatch(view.body, /hubuser|s:cret|s%3Acret/, 'neither name nor password is shown');
  }
  t.match(views[2].body, `"url":"http://127.0.0.1:${web.port}/private"`, 'agents see the URL without them');

  await checkServices(deps, { ids: [service.id] });
  t.match(await read(service.id), { state: 'up', message: 'HTTP 200' }, 'the check sends them');
  t.equal(web.requests.at(-1)?.headers.authorization, expected);
});

t.test('they go to the URL’s origin only, never to another a redirect points at', async (t) => {
  const service = await create({
    name: 'Moves away',
    kind: 'http',
    url: `http://127.0.0.1:${web.port}/away`,
    basic_auth: { username: 'hubuser', password: secret },
  });
  t.same(service.basic_auth, { set: true });
  await checkServices(deps, { ids: [service.id] });
  t.match(await read(service.id), { state: 'up' });
  t.equal(web.requests.at(-1)?.headers.authorization, expected, 'sent to the service itself');
  t.equal(elsewhere.requests.length, 1);
  t.equal(elsewhere.requests[0].headers.authorization, undefined, 'not to the other origin');
});

t.test('kept across edits of the same origin; replaced, moved away or removed on request', async (t) => {
  const service = await create({
    name: 'Edited',
    kind: 'http',
    url: withCredentials.replace('/private', '/e'),
  });
  const patch = async (payload: Record<string, unknown>) => {
    const response = await ta.asOwner({
      method: 'PATCH',
      url: `/api/health/services/${service.id}`,
      payload,
    });
    t.equal(response.statusCode, 200, `PATCH ${JSON.stringify(payload)}`);
    return response.json();
  };
  t.same((await patch({ name: 'Renamed' })).basic_auth, { set: true }, 'a rename keeps them');
  t.same(
    (await patch({ url: `http://127.0.0.1:${web.port}/e2` })).basic_auth,
    { set: true },
    'a new path on the same origin keeps them',
  );
  t.same(
    (await patch({ url: `http://127.0.0.2:${web.port}/e2` })).basic_auth,
    { set: false },
    'another origin drops them: they were not given for it',
  );
  t.same((await patch({ basic_auth: { username: 'u', password: 'p' } })).basic_auth, { set: true });
  t.same((await patch({ basic_auth: null })).basic_auth, { set: false }, 'null removes them');
  t.same(await stored(service.id), {
    url: `http://127.0.0.2:${web.port}/e2`,
    basic_auth_username: null,
    basic_auth_password: null,
    sealed: false,
  });
  await patch({ url: withCredentials.replace('/private', '/e3') });
  const replaced = await ta.asOwner({
    method: 'PUT',
    url: `/api/health/services/${service.id}`,
    payload: { name: 'Replaced', kind: 'http', url: `http://127.0.0.1:${web.port}/e3` },
  });
  t.same(replaced.json().basic_auth, { set: false }, 'a replacement without them has none');

  const both = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: {
      name: 'Both',
      kind: 'http',
      url: withCredentials,
      basic_auth: { username: 'a', password: 'b' },
    },
  });
  t.equal(both.statusCode, 400);
  t.match(both.json(), { code: 'INVALID_SERVICE_CHECK', message: /not both/ });
  const tcp = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: {
      name: 'Tcp',
      kind: 'tcp',
      host: 'nas.lan',
      port: 22,
      basic_auth: { username: 'a', password: 'b' },
    },
  });
  t.equal(tcp.statusCode, 400);
  const badUrl = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'Broken', kind: 'http', url: 'http://user:hunter2@exa mple/' },
  });
  t.equal(badUrl.statusCode, 400);
  t.notMatch(badUrl.json().message, /hunter2/, 'a refusal does not repeat the password');
});

t.test('links and URLs: http or https only', async (t) => {
  for (const payload of [
    { name: 'x', kind: 'http', url: 'javascript:alert(1)' },
    { name: 'x', kind: 'http', url: 'http://nas.lan/', link: 'javascript:alert(1)' },
    { name: 'x', kind: 'http', url: 'http://nas.lan/', link: 'data:text/html,hi' },
    { name: 'x', kind: 'http', url: 'http://nas.lan/', link: 'https://admin:pw@nas.lan/' },
  ]) {
    const response = await ta.asOwner({ method: 'POST', url: '/api/health/services', payload });
    t.equal(response.statusCode, 400, JSON.stringify(payload));
    t.equal(response.json().code, 'INVALID_SERVICE_CHECK');
  }
  t.same(await ta.sql`select name from monitored_services where name = 'x'`, [], 'none stored');
});

t.test('cloud metadata: refused in a definition and at every redirect hop of a check', async (t) => {
  for (const payload of [
    { kind: 'http', url: 'http://169.254.169.254/latest/meta-data/' },
    { kind: 'http', url: 'http://[fd00:ec2::254]/' },
    { kind: 'http', url: 'http://metadata.google.internal/computeMetadata/v1/' },
    { kind: 'tcp', host: '169.254.169.254', port: 80 },
    { kind: 'tcp', host: 'metadata.google.internal', port: 80 },
  ]) {
    const response = await ta.asOwner({
      method: 'POST',
      url: '/api/health/services',
      payload: { name: 'Metadata', ...payload },
    });
    t.equal(response.statusCode, 400, JSON.stringify(payload));
    t.match(response.json(), { code: 'INVALID_SERVICE_CHECK', message: /cloud metadata/ });
  }

  const dialledBefore = dialled.length;
  for (const hop of ['/meta', '/meta-name']) {
    const service = await create({ name: `Redirects ${hop}`, kind: 'http', url: `${web.url}${hop}` });
    t.equal(service.follow_redirects, true, 'redirects are followed by default');
    await checkServices(deps, { ids: [service.id] });
    t.match(await read(service.id), { state: 'down', message: /cloud metadata/ }, hop);
  }
  t.same(
    dialled.slice(dialledBefore).filter((address) => !address.startsWith('127.')),
    [],
    'no socket outside loopback',
  );
  t.ok(
    dialled.some((address) => address.startsWith('127.')),
    'checks connect through the guarded connector',
  );
});

t.test('the migration moves credentials out of stored URLs', async (t) => {
  const db = await testDatabase(t);
  // A database as it was before the move: every migration up to the one that makes it.
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-migrations-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const empty = postgres(db.adminUrl, { max: 1, onnotice: () => undefined });
  t.teardown(() => empty.end());
  const role = new URL(db.url).username;
  await empty.unsafe(`drop schema public cascade; create schema public authorization "${role}"`);
  for (const file of await readdir(migrationsDir)) {
    if (file < '0020_') await cp(path.join(migrationsDir, file), path.join(dir, file));
  }
  await migrate(db.sql, dir);
  await db.sql`
    insert into monitored_services (name, kind, url, host, port, target) values
      ('Old', 'http', ${'http://admin:p%40ss%3Aw%C3%B6rd@nas.lan/status'}, 'nas.lan', 80, 'http://nas.lan:80/status'),
      ('User only', 'http', 'https://reader@wiki.lan/', 'wiki.lan', 443, 'https://wiki.lan:443/'),
      ('Plain', 'http', 'http://router.lan/', 'router.lan', 80, 'http://router.lan:80/')`;
  t.equal((await migrate(db.sql))[0], '0020_health_credentials', 'the move is the first migration applied');
  t.same(
    await db.sql`
      select name, url, basic_auth_username, basic_auth_password from monitored_services order by name`,
    [
      {
        name: 'Old',
        url: 'http://nas.lan/status',
        basic_auth_username: 'admin',
        basic_auth_password: 'p@ss:wörd',
      },
      { name: 'Plain', url: 'http://router.lan/', basic_auth_username: null, basic_auth_password: null },
      { name: 'User only', url: 'https://wiki.lan/', basic_auth_username: 'reader', basic_auth_password: '' },
    ],
  );
  const refused = await db.sql`
    update monitored_services set url = 'http://a:b@router.lan/' where name = 'Plain'`.catch(
    (error) => error,
  );
  t.equal(refused.code, '23514', 'a URL can no longer hold credentials');
});
