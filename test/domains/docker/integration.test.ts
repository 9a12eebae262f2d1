// The docker integration: configured in the browser (a unix socket, or TLS with a client certificate), tested against
// the fake Engine API's /version before it is saved, used by the sync at once; DOCKER_HOST (and DOCKER_CERT_PATH)
// win, and a bad DOCKER_HOST stops start-up.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../config/index.ts';
import { syncDocker } from '../../../domains/docker/sync.ts';
import { type TestApp, testApp } from '../../helpers/app.ts';
import { engineContainer, startFakeDocker, startFakeDockerTls } from '../../helpers/docker.ts';
import { testCa } from '../../helpers/tls.ts';

const labelled = () => [
  engineContainer('jellyfin', {
    Labels: { 'homepage.name': 'Jellyfin', 'homepage.href': 'http://jellyfin.home.test:8096' },
  }),
];

const entry = async (ta: TestApp) =>
  (await ta.asOwner({ method: 'GET', url: '/api/integrations' }))
    .json()
    .items.find((item: { kind: string }) => item.kind === 'docker');

const put = (ta: TestApp, payload: Record<string, unknown>) =>
  ta.asOwner({ method: 'PUT', url: '/api/integrations/docker', payload });

t.test(
  'a unix socket: tested on save, refused when the daemon fails, used by the sync at once',
  async (t) => {
    const docker = await startFakeDocker(t, labelled());
    const ta = await testApp(t);
    t.match(await entry(ta), { configured: false, source: null, fields: { client_key: { set: false } } });
    t.equal(await syncDocker({ sql: ta.sql, config: ta.config }), null, 'nothing to read yet');

    const missing = await put(ta, { host: 'unix:///nonexistent/docker.sock' });
    t.equal(missing.statusCode, 422);
    t.match(missing.json(), { code: 'INTEGRATION_TEST_FAILED', test: { ok: false, status: null } });
    t.match(missing.json().message, /no such socket/);

    docker.failWith = { status: 500, message: 'Error response from daemon: dial unix containerd.sock' };
    const failing = await put(ta, { host: docker.host });
    t.equal(failing.statusCode, 422);
    t.match(failing.json().test, { ok: false, status: 500, message: /dial unix containerd\.sock/ });
    t.equal((await entry(ta)).configured, false, 'nothing was stored');

    docker.failWith = null;
    const saved = await put(ta, { host: docker.host });
    t.equal(saved.statusCode, 200);
    t.match(saved.json(), {
      kind: 'docker',
      configured: true,
      source: 'settings',
      fields: { host: docker.host, client_key: { set: false } },
      last_test: { ok: true, status: 200, message: 'Docker 27.3.1 (API 1.47) on linux/amd64' },
    });
    t.ok(docker.requests.includes('GET /version'));

    const tested = await ta.asOwner({ method: 'POST', url: '/api/integrations/docker/test' });
    t.match(tested.json(), { ok: true, message: /Docker 27\.3\.1/ });

    // The sync reads the stored settings, no restart.
    t.match(await syncDocker({ sql: ta.sql, config: ta.config }), { containers: 1, candidates: 1 });
    const bad = await put(ta, { host: 'ssh://docker.home.test' });
    t.equal(bad.statusCode, 400);
  },
);

t.test('TLS with a client certificate, the key sealed at rest', async (t) => {
  const ca = testCa(t, 'Docker Test CA');
  const docker = await startFakeDockerTls(t, { server: ca.issue('127.0.0.1', 30), ca: ca.cert }, labelled());
  const client = ca.issue('docker-client', 30);
  const ta = await testApp(t);

  const anonymous = await put(ta, { host: docker.host, ca_certificate: ca.cert });
  t.equal(anonymous.statusCode, 422, 'the daemon wants a client certificate');

  const untrusted = await put(ta, {
    host: docker.host,
    client_certificate: client.cert,
    client_key: client.key,
  });
  t.equal(untrusted.statusCode, 422, "the daemon's certificate is checked");
  t.match(untrusted.json().test.message, /TLS certificate not accepted/);

  const half = await put(ta, { host: docker.host, ca_certificate: ca.cert, client_certificate: client.cert });
  t.equal(half.statusCode, 400);
  t.match(half.json().message, /client_certificate and client_key go together/);

  const saved = await put(ta, {
    host: docker.host,
    ca_certificate: ca.cert,
    client_certificate: client.cert,
    client_key: client.key,
  });
  t.equal(saved.statusCode, 200);
  t.match(saved.json().fields, { client_key: { set: true }, client_certificate: client.cert });
  t.notMatch(saved.body, /PRIVATE KEY/);
  const [row] = await ta.sql<{ fields: unknown; secrets: unknown }[]>`
    select fields, secrets from integrations where kind = 'docker'`;
  t.notMatch(JSON.stringify(row), /PRIVATE KEY/, 'the key is not in the database in the clear');

  // Saved again without the key: the stored one is kept.
  const again = await put(ta, {
    host: docker.host,
    ca_certificate: ca.cert,
    client_certificate: client.cert,
  });
  t.equal(again.statusCode, 200);
  t.match(await syncDocker({ sql: ta.sql, config: ta.config }), { candidates: 1 });

  // tcp:// with certificates speaks TLS, as docker --tlsverify does.
  const tcp = await put(ta, {
    host: docker.host.replace('https://', 'tcp://'),
    ca_certificate: ca.cert,
    client_certificate: client.cert,
  });
  t.equal(tcp.statusCode, 200);
});

t.test('DOCKER_HOST and DOCKER_CERT_PATH win; a bad one stops start-up', async (t) => {
  const ca = testCa(t, 'Docker Env CA');
  const docker = await startFakeDockerTls(t, { server: ca.issue('127.0.0.1', 30), ca: ca.cert }, labelled());
  const client = ca.issue('docker-client', 30);
  const certs = await mkdtemp(path.join(os.tmpdir(), 'hub-docker-certs-'));
  t.teardown(() => rm(certs, { recursive: true, force: true }));
  await writeFile(path.join(certs, 'ca.pem'), ca.cert);
  await writeFile(path.join(certs, 'cert.pem'), client.cert);
  await writeFile(path.join(certs, 'key.pem'), client.key, { mode: 0o600 });

  const ta = await testApp(t, { env: { DOCKER_HOST: docker.host, DOCKER_CERT_PATH: certs } });
  t.match(await entry(ta), {
    configured: true,
    source: 'environment',
    variables: ['DOCKER_HOST', 'DOCKER_CERT_PATH', 'DOCKER_TLS_VERIFY'],
    fields: { host: docker.host, tls: true, client_key: { set: true } },
  });
  const refused = await put(ta, { host: 'unix:///var/run/docker.sock' });
  t.equal(refused.statusCode, 409);
  t.match(refused.json(), { code: 'SET_BY_ENVIRONMENT', message: /DOCKER_HOST/ });
  const tested = await ta.asOwner({ method: 'POST', url: '/api/integrations/docker/test' });
  t.match(tested.json(), { ok: true, message: /Docker 27\.3\.1/ });
  t.match(await syncDocker({ sql: ta.sql, config: ta.config }), { candidates: 1 });

  // tcp:// is plain unless DOCKER_TLS_VERIFY asks for TLS, as the docker CLI reads it.
  const tcp = docker.host.replace('https://', 'tcp://');
  t.match(loadConfig({ DOCKER_HOST: tcp, DOCKER_CERT_PATH: certs }).docker, { tls: false });
  t.match(loadConfig({ DOCKER_HOST: tcp, DOCKER_CERT_PATH: certs, DOCKER_TLS_VERIFY: '1' }).docker, {
    tls: true,
    certPath: certs,
  });
  t.throws(() => loadConfig({ DOCKER_HOST: 'ssh://me@docker.home.test' }), /DOCKER_HOST must be unix:\/\/\//);
  t.throws(() => loadConfig({ DOCKER_HOST: 'unix://docker.sock' }), /DOCKER_HOST must name an absolute/);
  t.throws(
    () => loadConfig({ DOCKER_HOST: docker.host, DOCKER_CERT_PATH: path.join(certs, 'nowhere') }),
    /DOCKER_CERT_PATH has no ca\.pem/,
  );
});
