// The service health registry: definitions and targets, real checks against local servers (a server stopped and
// restarted: state, since, history, events and alerts to a fake ntfy server), retries, keyword, status range and
// redirects, the recurring run and retention, Prometheus metrics, and the service_health tool.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { JobHelpers } from 'graphile-worker';
import t from 'tap';
import { checkServices, healthCron, healthTasks } from '../../../domains/health/jobs.ts';
import { hub } from '../../../modules.ts';
import { runDueItems } from '../../../worker/cron.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A fake ntfy: records each publish and answers like ntfy does (the message as JSON). */
async function startNtfy(t: Teardown, failFirst = 0) {
  const waiters: { count: number; resolve: () => void }[] = [];
  let failures = failFirst;
  const ntfy = await startUpstream(t, (request, response) => {
    if (failures > 0) {
      failures--;
      response.writeHead(503).end();
    } else {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `m${ntfy.requests.length}`,
          time: Math.floor(Date.now() / 1000),
          event: 'message',
          topic: (request.url ?? '/').slice(1),
          title: request.headers.title,
          message: request.body,
          tags: String(request.headers.tags ?? '').split(','),
        }),
      );
    }
    for (const waiter of waiters.filter((w) => ntfy.requests.length >= w.count)) waiter.resolve();
  });
  const received = (count: number) =>
    new Promise<void>((resolve) => {
      if (ntfy.requests.length >= count) resolve();
      else waiters.push({ count, resolve });
    });
  return { ...ntfy, received };
}

/** A local web service that can be stopped and started again on the same port. */
async function startService(t: Teardown) {
  const requests: http.IncomingHttpHeaders[] = [];
  const handler: http.RequestListener = (request, response) => {
    requests.push(request.headers);
    if (request.url?.startsWith('/redirect')) {
      response.writeHead(302, { location: '/' }).end();
    } else if (request.url === '/broken') {
      response.writeHead(503).end('unavailable');
    } else {
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<title>Fridge</title><p>all systems nominal</p>');
    }
  };
  let server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t.teardown(stop);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    stop,
    async restart() {
      server = http.createServer(handler);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
  };
}

const ntfy = await startNtfy(t);
const web = await startService(t);
const ta = await testApp(t, {
  worker: true,
  env: {
    ALERT_URL: `${ntfy.url}/hub-alerts`,
    ALERT_FORMAT: 'ntfy',
    METRICS_TOKEN: 'scrape-token-0123456789',
  },
});
const deps = { sql: ta.sql, config: ta.config };

async function create(payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url: '/api/health/services', payload });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.body}`);
  return response.json();
}
const service = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/services/${id}` })).json();

t.test('definitions: check fields, one service per target, 400 for bad URLs and ports', async (t) => {
  const bad = [
    [{ name: 'x', kind: 'http', url: 'not a url' }, /url "not a url" is not a URL/],
    [{ name: 'x', kind: 'http', url: 'ftp://nas/' }, /http\(s\)/],
    [{ name: 'x', kind: 'http' }, /url is required/],
    [{ name: 'x', kind: 'tcp', host: 'nas.lan' }, /port must be/],
    [{ name: 'x', kind: 'tcp', host: 'nas.lan', port: 70000 }, /port must be/],
    [{ name: 'x', kind: 'tcp', host: 'bad host!', port: 22 }, /not a host name/],
    [{ name: 'x', kind: 'http', url: 'http://a/', status_min: 400, status_max: 300 }, /status_min/],
  ] as const;
  for (const [payload, message] of bad) {
    const response = await ta.asOwner({ method: 'POST', url: '/api/health/services', payload });
    t.equal(response.statusCode, 400, JSON.stringify(payload));
    t.equal(response.json().code, 'INVALID_SERVICE_CHECK');
    t.match(response.json().message, message);
  }
  const tooFast = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'x', kind: 'http', url: 'http://a/', interval_s: 5 },
  });
  t.equal(tooFast.statusCode, 400);

  const nas = await create({
    name: 'NAS',
    kind: 'http',
    url: 'http://NAS.lan/admin',
    external: true,
    category: 'Storage',
  });
  t.match(nas, {
    target: 'http://nas.lan:80/admin',
    external: true,
    state: 'pending',
    interval_s: 60,
    retries: 0,
  });
  const same = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'NAS again', kind: 'http', url: 'http://nas.lan:80/admin?x=1' },
  });
  t.equal(same.statusCode, 409);
  t.equal(same.json().code, 'SERVICE_TARGET_TAKEN');
  const ssh = await create({ name: 'NAS ssh', kind: 'tcp', host: 'nas.lan', port: 22, category: 'Storage' });
  t.equal(ssh.target, 'tcp://nas.lan:22');
  const clash = await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${ssh.id}`,
    payload: { kind: 'http', url: 'http://nas.lan/admin' },
  });
  t.equal(clash.statusCode, 409);
  const put = await ta.asOwner({
    method: 'PUT',
    url: `/api/health/services/${ssh.id}`,
    payload: { name: 'NAS shell', kind: 'tcp', host: 'nas.lan', port: 2222, external: true },
  });
  t.match(put.json(), {
    name: 'NAS shell',
    target: 'tcp://nas.lan:2222',
    external: true,
    category: 'Services',
  });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/health/services/${nas.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/health/services/${ssh.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/health/services/${ssh.id}` })).statusCode, 404);
});

t.test('a service going down and back up: state, since, history, events and alerts', async (t) => {
  const fridge = await create({
    name: 'Fridge',
    kind: 'http',
    url: `${web.url}/`,
    keyword: 'nominal',
    category: 'Home',
  });
  const first = await checkServices(deps, { ids: [fridge.id] });
  t.match(first, { checked: 1, up: 1, changed: 1 });
  const up = await service(fridge.id);
  t.match(up, { state: 'up', message: 'HTTP 200', uptime_24h: 100 });
  t.type(up.latency_ms, 'number');
  t.notOk(web.requests.at(-1)?.authorization, 'checks send none of the hub credentials');

  await web.stop();
  await checkServices(deps, { ids: [fridge.id] });
  const down = await service(fridge.id);
  t.match(down, { state: 'down', message: 'connection refused', latency_ms: null });
  t.ok(new Date(down.since) > new Date(up.since), 'since moves with the state');
  await ntfy.received(1);
  t.equal(ntfy.requests[0].url, '/hub-alerts');
  t.equal(ntfy.requests[0].headers.title, 'Fridge is down');
  t.equal(ntfy.requests[0].headers.tags, 'red_circle,service-down');
  t.equal(ntfy.requests[0].headers.priority, '4');
  t.match(ntfy.requests[0].body, /Fridge \(Home\) is down: connection refused/);

  await checkServices(deps, { ids: [fridge.id] });
  t.equal((await service(fridge.id)).since, down.since, 'a second failure keeps since');
  await web.restart();
  await checkServices(deps, { ids: [fridge.id] });
  t.match(await service(fridge.id), { state: 'up', uptime_24h: 50 });
  await ntfy.received(2);
  t.equal(ntfy.requests.length, 2, 'one alert for going down, one for coming back; none for the first pass');
  t.equal(ntfy.requests[1].headers.title, 'Fridge is back up');

  const history = (
    await ta.asOwner({ method: 'GET', url: `/api/health/services/${fridge.id}/history` })
  ).json();
  t.same(
    history.checks.map((check: { state: string }) => check.state),
    ['up', 'down', 'down', 'up'],
  );
  t.same(history.uptime, { '24h': 50, '7d': 50, '30d': 50 });
  const since = history.checks[1].checked_at;
  const recent = (
    await ta.asOwner({
      method: 'GET',
      url: `/api/health/services/${fridge.id}/history?since=${encodeURIComponent(since)}`,
    })
  ).json();
  t.equal(recent.checks.length, 2);

  const events = (
    await ta.asOwner({ method: 'GET', url: `/api/health/events?service_id=${fridge.id}` })
  ).json();
  t.same(
    events.items.map(
      (event: { from_state: string; to_state: string }) => `${event.from_state}>${event.to_state}`,
    ),
    ['down>up', 'up>down', 'pending>up'],
  );
  t.equal(events.items[1].message, 'connection refused');
});

t.test('retries, keyword, status range and redirects', async (t) => {
  const patient = await create({ name: 'Patient', kind: 'http', url: `${web.url}/broken`, retries: 1 });
  await ta.sql`update monitored_services set state = 'up' where id = ${patient.id}`;
  await checkServices(deps, { ids: [patient.id] });
  t.match(
    await service(patient.id),
    { state: 'up', message: 'HTTP 503' },
    'one failure within retries keeps it up',
  );
  await checkServices(deps, { ids: [patient.id] });
  t.match(await service(patient.id), { state: 'down', message: 'HTTP 503' });

  const keyword = await create({ name: 'Keyword', kind: 'http', url: `${web.url}/k`, keyword: 'on fire' });
  const strict = await create({
    name: 'No redirects',
    kind: 'http',
    url: `${web.url}/redirect`,
    follow_redirects: false,
    status_max: 299,
  });
  const follows = await create({
    name: 'Redirects',
    kind: 'http',
    url: `${web.url}/redirect-followed`,
    status_max: 299,
  });
  const port = await create({ name: 'Port', kind: 'tcp', host: '127.0.0.1', port: web.port });
  await checkServices(deps, { ids: [keyword.id, strict.id, follows.id, port.id] });
  t.match(await service(keyword.id), { state: 'down', message: 'keyword not found' });
  t.match(await service(strict.id), { state: 'down', message: 'HTTP 302' });
  t.match(await service(follows.id), { state: 'up', message: 'HTTP 200' });
  t.match(await service(port.id), { state: 'up', message: 'port open' });
  for (const id of [patient.id, keyword.id, strict.id, follows.id, port.id]) {
    await ta.asOwner({ method: 'DELETE', url: `/api/health/services/${id}` });
  }
});

t.test('TLS verification is on unless the service turns it off', async (t) => {
  // A self-signed certificate, as a LAN appliance has.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ops-hub-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const server = https.createServer(
    { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
    (_request, response) => response.end('ok'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}/`;
  const strict = await create({ name: 'Appliance', kind: 'http', url });
  const lenient = await create({
    name: 'Appliance (no verify)',
    kind: 'http',
    url: `${url}x`,
    verify_tls: false,
  });
  await checkServices(deps, { ids: [strict.id, lenient.id] });
  t.match(await service(strict.id), { state: 'down', message: /^TLS: / });
  t.match(await service(lenient.id), { state: 'up', message: 'HTTP 200' });
  for (const id of [strict.id, lenient.id])
    await ta.asOwner({ method: 'DELETE', url: `/api/health/services/${id}` });
});

t.test('the list groups by category with healthy counts; agents read, only the owner writes', async (t) => {
  await create({ name: 'Off', kind: 'tcp', host: '127.0.0.1', port: 9, category: 'Home', enabled: false });
  const agent = await createAgent(ta, { tier: 'owner' });
  const list = await ta.asAgent(agent.token, { method: 'GET', url: '/api/health/services' });
  t.equal(list.statusCode, 200);
  const home = list.json().groups.find((group: { category: string }) => group.category === 'Home');
  t.match(home, { healthy: 1, total: 1 });
  t.same(
    home.services.map((s: { name: string }) => s.name),
    ['Fridge', 'Off'],
  );
  t.equal(home.services[1].state, 'pending');
  const write = await ta.asAgent(agent.token, { method: 'POST', url: '/api/health/check' });
  t.equal(write.json().code, 'OWNER_ONLY');
  t.equal((await ta.anon({ method: 'POST', url: '/api/health/check' })).statusCode, 401);
  const check = await ta.asOwner({ method: 'POST', url: '/api/health/check', payload: {} });
  t.equal(check.statusCode, 202);
  const [record] = await ta.sql`select task, payload from job_records where id = ${check.json().job_id}`;
  t.match(record, { task: 'health.check', payload: {} });
});

t.test(
  'recurring checks honour intervals; a daily purge removes results older than the retention',
  async (t) => {
    const items = healthCron(deps);
    const log = { info: () => undefined, error: (message: string) => t.fail(message) };
    t.same(await runDueItems(deps, items, new Date('2026-03-01T10:07:00'), log), ['health.check']);
    t.same(
      await runDueItems(deps, items, new Date('2026-03-02T03:41:00'), log),
      ['health.check', 'health.purge'],
      'the purge runs once a day',
    );
    const [fridge] = await ta.sql`select id from monitored_services where name = 'Fridge'`;
    await ta.sql`
    insert into health_results (service_id, checked_at, ok, state) values (${fridge.id}, now() - interval '3 days', true, 'up')`;
    const [setting] = await ta.sql`select key from app_settings where key = 'health.retention_days'`;
    t.notOk(setting, 'not set: the default applies');
    const count = async () =>
      (await ta.sql`select count(*)::int as count from health_results where service_id = ${fridge.id}`)[0]
        .count;
    const helpers = { logger: { info: () => undefined, warn: () => undefined } } as unknown as JobHelpers;
    const task = (name: string) => healthTasks.find((entry) => entry.task.name === name)?.executor(deps);
    // Fridge was checked just now, so the due run leaves it alone.
    const before = await count();
    await task('health.check')?.({ due: true }, helpers);
    t.equal(await count(), before, 'not checked again before its interval');
    await task('health.purge')?.({}, helpers);
    t.equal(await count(), before, 'a 3-day-old result stays under the default of 90 days');
    await ta.asOwner({ method: 'PUT', url: '/api/settings/health.retention_days', payload: { value: 2 } });
    await task('health.purge')?.({}, helpers);
    const after = await count();
    t.equal(after, before - 1, 'the old result purged under a 2-day retention');
    await ta.sql`update monitored_services set checked_at = now() - interval '61 seconds' where id = ${fridge.id}`;
    await task('health.check')?.({ due: true }, helpers);
    t.equal(await count(), after + 1, 'checked once its interval has passed');
  },
);

/** Prometheus text: `name{label="v",...} value` lines. */
function parseMetrics(text: string) {
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

t.test('metrics: the owner or METRICS_TOKEN, Prometheus text', async (t) => {
  await ta.asOwner({ method: 'POST', url: '/api/devices', payload: { mac: '02:00:00:00:00:01' } });
  t.equal((await ta.anon({ method: 'GET', url: '/api/metrics' })).statusCode, 401);
  const agent = await createAgent(ta, { tier: 'owner' });
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/metrics' })).statusCode, 403);
  t.equal((await ta.asAgent('wrong-token', { method: 'GET', url: '/api/metrics' })).statusCode, 401);
  const scraped = await ta.asAgent('scrape-token-0123456789', { method: 'GET', url: '/api/metrics' });
  t.equal(scraped.statusCode, 200);
  t.match(scraped.headers['content-type'], /^text\/plain/);
  const samples = parseMetrics(scraped.body);
  const up = samples.filter((sample) => sample.name === 'hub_service_up');
  t.same(up, [{ name: 'hub_service_up', labels: { name: 'Fridge', category: 'Home' }, value: 1 }]);
  const latency = samples.find((sample) => sample.name === 'hub_service_latency_seconds');
  t.ok(latency && latency.value > 0 && latency.value < 5, 'latency in seconds');
  t.match(
    samples.find((sample) => sample.name === 'hub_devices'),
    { labels: { status: 'known', present: 'false' }, value: 1 },
  );
  t.ok(samples.some((sample) => sample.name === 'hub_jobs' && sample.labels.task === 'health.check'));
  t.ok(
    samples.some((sample) => sample.name === 'process_cpu_seconds_total'),
    'process metrics',
  );
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/metrics' })).statusCode, 200);
});

t.test('the service_health and list_devices tools', async (t) => {
  const { toolsByName } = hub;
  const principal = { kind: 'owner', via: 'token' } as const;
  const ctx = {
    sql: ta.sql,
    env: { entities: hub.entities },
    actions: hub.actions,
    principal,
    spaceContext: null,
  };
  const health = (await toolsByName.get('service_health')?.call({ category: 'Home' }, ctx)) as {
    groups: { category: string; services: { name: string; state: string }[] }[];
  };
  t.same(
    health.groups.map((group) => group.category),
    ['Home'],
  );
  t.equal(health.groups[0].services[0].state, 'up');
  const devices = (await toolsByName.get('list_devices')?.call({ q: '02:00' }, ctx)) as {
    total: number;
  };
  t.equal(devices.total, 1);
});
