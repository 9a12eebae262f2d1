// Push services: heartbeats in Uptime Kuma's shape (/api/push/:token) and healthchecks.io's (/api/ping/:token...),
// with no credential but the token; the token shown once and stored as a hash; a missed heartbeat and a start
// without a finish turning the service down through the periodic check (time moved by backdating rows); unknown
// tokens 404 in each shape; a rate limit per token.
import { createHash } from 'node:crypto';
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { heartbeatsPerMinute, maxMessageBytes } from '../../../domains/health/push-routes.ts';
import { appendPushLog, pushLogKept } from '../../../domains/health/store.ts';
import { alertsDelivered } from '../../helpers/alert-receiver.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const alerts = await startUpstream(t, (_request, response) => response.writeHead(200).end());
const ta = await testApp(t, { worker: true, env: { ALERT_URL: `${alerts.url}/alerts` } });
const deps = { sql: ta.sql, config: ta.config };

async function createPush(payload: Record<string, unknown> = {}) {
  const response = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'Nightly backup', kind: 'push', interval_s: 3600, grace_s: 600, ...payload },
  });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.body}`);
  return response.json() as { id: string; push_token: string; [key: string]: unknown };
}
const read = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/services/${id}` })).json();
const results = async (id: string) =>
  ta.sql<{ ok: boolean; state: string; message: string | null; latency_ms: number | null }[]>`
    select ok, state, message, latency_ms from health_results where service_id = ${id} order by checked_at, ctid`;
const events = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/events?service_id=${id}` })).json().items;
/** Each alert is its own delivery job, so they may reach the receiver in any order: compared sorted by event and reason. */
const sortedByEventAndReason = (sent: { event: string; reason?: string }[]) =>
  sent.toSorted((a, b) => `${a.event} ${a.reason ?? ''}`.localeCompare(`${b.event} ${b.reason ?? ''}`));
const sentAbout = (id: string) =>
  sortedByEventAndReason(
    alerts.requests.map((request) => JSON.parse(request.body)).filter((alert) => alert.service_id === id),
  );
/** Moves a service's last record and creation back by `seconds`, as if that much time had passed. */
async function age(id: string, seconds: number) {
  await ta.sql`
    update monitored_services set
      checked_at = checked_at - make_interval(secs => ${seconds}),
      created_at = created_at - make_interval(secs => ${seconds}),
      push_started_at = push_started_at - make_interval(secs => ${seconds})
    where id = ${id}`;
}

t.test('a push service: its token shown once, stored as a hash, never to agents', async (t) => {
  const service = await createPush();
  t.match(service, { kind: 'push', url: null, host: null, port: null, state: 'pending', grace_s: 600 });
  t.match(service.push_token, /^[A-Za-z0-9_-]{43,}$/, '32 random bytes, base64url');
  const [row] = await ta.sql<{ push_token_hash: Buffer; target: string }[]>`
    select push_token_hash, target from monitored_services where id = ${service.id}`;
  t.same(
    row.push_token_hash,
    createHash('sha256').update(service.push_token).digest(),
    'only its hash is kept',
  );
  t.match(row.target, /^push:\/\//);
  t.equal((await read(service.id)).push_token, null, 'not shown again');
  const reader = await createAgent(ta, { tier: 'read' });
  const seen = await ta.asAgent(reader.token, { method: 'GET', url: '/api/health/services' });
  t.notOk(seen.body.includes(service.push_token));

  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${service.id}`,
    payload: { name: 'Nightly backup (NAS)' },
  });
  t.equal(patched.json().push_token, null, 'an edit keeps the token (nothing new to show)');
  const [after] = await ta.sql`select target from monitored_services where id = ${service.id}`;
  t.equal(after.target, row.target, 'and the target');

  const renewed = await ta.asOwner({ method: 'POST', url: `/api/health/services/${service.id}/push-token` });
  t.equal(renewed.statusCode, 200);
  const token = renewed.json().push_token;
  t.ok(token && token !== service.push_token, 'a new token');
  t.equal(
    (await ta.anon({ method: 'GET', url: `/api/push/${service.push_token}` })).statusCode,
    404,
    'old: 404',
  );
  t.equal((await ta.anon({ method: 'GET', url: `/api/push/${token}` })).statusCode, 200, 'new: works');

  const http = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'Web', kind: 'http', url: 'http://127.0.0.1:9/' },
  });
  t.equal(http.json().push_token, null, 'other kinds have none');
  const refused = await ta.asOwner({
    method: 'POST',
    url: `/api/health/services/${http.json().id}/push-token`,
  });
  t.match(refused.json(), { statusCode: 409, code: 'SERVICE_NOT_PUSH' });
});

t.test("Uptime Kuma's push: up, down, msg and ping; {ok:true}", async (t) => {
  const service = await createPush();
  const url = `/api/push/${service.push_token}`;
  const up = await ta.anon({ method: 'GET', url: `${url}?status=up&msg=Backup%20done&ping=42.4` });
  t.equal(up.statusCode, 200);
  t.same(up.json(), { ok: true });
  t.match(await read(service.id), { state: 'up', message: 'Backup done', latency_ms: 42 });
  t.ok((await read(service.id)).last_push_at, 'the heartbeat is kept');

  const down = await ta.anon({ method: 'POST', url: `${url}?status=down&msg=disk%20full` });
  t.same(down.json(), { ok: true });
  t.match(await read(service.id), { state: 'down', message: 'disk full' });

  await ta.anon({ method: 'GET', url });
  t.match(await read(service.id), { state: 'up', message: 'OK', latency_ms: null }, 'defaults: up, OK');
  t.match(await results(service.id), [
    { ok: true, message: 'Backup done', latency_ms: 42 },
    { ok: false, message: 'disk full' },
    { ok: true, message: 'OK' },
  ]);
  t.match(await events(service.id), [
    { from_state: 'down', to_state: 'up', message: 'OK' },
    { from_state: 'up', to_state: 'down', message: 'disk full' },
    { from_state: 'pending', to_state: 'up', message: 'Backup done' },
  ]);
  await alertsDelivered(ta.sql);
  const sent = sentAbout(service.id);
  t.equal(sent.length, 2, 'both delivered');
  t.match(sent, [
    { event: 'service.down', title: 'Nightly backup is down', service_id: service.id, reason: 'disk full' },
    { event: 'service.up', title: 'Nightly backup is back up', service_id: service.id },
  ]);
});

t.test("healthchecks.io's ping: success, start, fail, exit codes, the body kept; OK as text", async (t) => {
  const service = await createPush();
  const url = `/api/ping/${service.push_token}`;
  const ok = await ta.anon({ method: 'GET', url });
  t.equal(ok.statusCode, 200);
  t.equal(ok.body, 'OK');
  t.match(ok.headers['content-type'], /^text\/plain/);
  t.match(await read(service.id), { state: 'up', message: 'OK' });

  const started = await ta.anon({ method: 'POST', url: `${url}/start` });
  t.equal(started.body, 'OK');
  t.ok((await read(service.id)).push_started_at, 'a start is open');
  const log = 'rsync: 120 files\nall good\n';
  await ta.anon({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: log });
  t.match(await read(service.id), { state: 'up', message: log.trim(), push_started_at: null }, 'finished');

  const failed = await ta.anon({
    method: 'POST',
    url: `${url}/fail`,
    headers: { 'content-type': 'application/json' },
    payload: '{"error": "not json-checked',
  });
  t.equal(failed.body, 'OK', 'any body, JSON or not, is taken as text');
  t.match(await read(service.id), { state: 'down', message: '{"error": "not json-checked' });

  await ta.anon({ method: 'GET', url: `${url}/0` });
  t.match(await read(service.id), { state: 'up', message: 'exit status 0' });
  await ta.anon({ method: 'POST', url: `${url}/3` });
  t.match(await read(service.id), { state: 'down', message: 'exit status 3' });
  await ta.anon({ method: 'POST', url: `${url}/fail` });
  t.match(await read(service.id), { message: 'failed' });
  const bad = await ta.anon({ method: 'POST', url: `${url}/256` });
  t.equal(bad.statusCode, 400, 'an exit status above 255 is refused');

  const big = `${'é'.repeat(maxMessageBytes)}tail`;
  await ta.anon({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/octet-stream' },
    payload: big,
  });
  const kept = (await read(service.id)).message as string;
  t.equal(Buffer.byteLength(kept), maxMessageBytes, 'a larger body is cut to 10 KB');
  t.ok(
    kept.startsWith('éé') && !kept.includes('tail') && !kept.includes('\uFFFD'),
    'never inside a character',
  );
  await ta.anon({ method: 'POST', url, headers: { 'content-type': 'text/plain' }, payload: 'a\u0000b' });
  t.equal((await read(service.id)).message, 'ab', 'a NUL is taken out rather than the heartbeat refused');
});

t.test("healthchecks.io's log ping: a message kept in the service's log, its state untouched", async (t) => {
  const service = await createPush();
  const url = `/api/ping/${service.push_token}`;
  await ta.anon({ method: 'GET', url });
  await ta.anon({ method: 'GET', url: `${url}/start` });
  const before = await read(service.id);
  const checks = (await results(service.id)).length;
  const changes = (await events(service.id)).length;
  // What `curl -fsS -m 10 --retry 5 --data-raw "disk 81% full" https://hc-ping.com/<uuid>/log` sends.
  const logged = await ta.anon({
    method: 'POST',
    url: `${url}/log`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'curl/8.5.0' },
    payload: 'disk 81% full',
  });
  t.equal(logged.statusCode, 200);
  t.equal(logged.body, 'OK');
  const empty = await ta.anon({ method: 'GET', url: `${url}/log` });
  t.equal(empty.body, 'OK');
  const after = await read(service.id);
  t.match(
    after,
    {
      state: before.state,
      message: before.message,
      checked_at: before.checked_at,
      push_started_at: before.push_started_at,
    },
    'neither the state, the last heartbeat nor the open start moved',
  );
  t.ok(after.push_started_at, 'the start is still open');
  t.equal((await results(service.id)).length, checks, 'no result recorded');
  t.equal((await events(service.id)).length, changes, 'no state change');
  const history = await ta.asOwner({ method: 'GET', url: `/api/health/services/${service.id}/history` });
  t.same(
    history.json().log.map((entry: { message: string }) => entry.message),
    ['(empty log message)', 'disk 81% full'],
    "newest first, with the service's history",
  );
  t.equal((await ta.anon({ method: 'POST', url: '/api/ping/no-such-token/log' })).body, 'not found');

  for (let n = 0; n <= pushLogKept; n++) await appendPushLog(ta.sql, service.id, `line ${n}`);
  const kept = await ta.sql<{ message: string }[]>`
    select message from push_log where service_id = ${service.id} order by id`;
  t.equal(kept.length, pushLogKept, `the newest ${pushLogKept} kept`);
  t.equal(kept[0].message, 'line 1');
});

t.test('a missed heartbeat and a start without a finish turn the service down', async (t) => {
  const service = await createPush({ interval_s: 3600, grace_s: 600 });
  await checkServices(deps, {});
  t.equal((await read(service.id)).state, 'pending', 'a new service is not late yet');

  await age(service.id, 3600 + 601);
  await checkServices(deps, {});
  t.match(await read(service.id), { state: 'down', message: 'no heartbeat within 4200 s' });
  await checkServices(deps, {});
  t.equal((await results(service.id)).length, 1, 'one miss counted per interval, not per check');

  await ta.anon({ method: 'GET', url: `/api/push/${service.push_token}?msg=back` });
  t.match(await read(service.id), { state: 'up', message: 'back' });
  await age(service.id, 3000);
  await checkServices(deps, {});
  t.equal((await read(service.id)).state, 'up', 'within interval plus grace: still up');

  await ta.anon({ method: 'GET', url: `/api/ping/${service.push_token}/start` });
  await age(service.id, 500);
  await checkServices(deps, {});
  t.equal((await read(service.id)).state, 'up', 'a run within its grace is fine');
  await age(service.id, 101);
  await checkServices(deps, {});
  t.match(await read(service.id), {
    state: 'down',
    message: 'started but did not finish within 600 s',
    push_started_at: null,
  });

  await alertsDelivered(ta.sql);
  // The outage is one service.down (outage.ts); each miss is also a heartbeat.missed, which the default rule sends
  // too (priority 4): the job that did not report. Deliveries are jobs of their own, so they are compared sorted.
  const sent = sentAbout(service.id);
  t.equal(sent.length, 5, 'all five delivered');
  t.match(sent, [
    { event: 'heartbeat.missed', reason: 'no heartbeat within 4200 s' },
    { event: 'heartbeat.missed', reason: 'started but did not finish within 600 s' },
    { event: 'service.down', title: 'Nightly backup is down', reason: 'no heartbeat within 4200 s' },
    { event: 'service.down', reason: 'started but did not finish within 600 s' },
    { event: 'service.up' },
  ]);
  const missed = await ta.sql<{ title: string; message: string }[]>`
    select title, message from alerts where event = 'heartbeat.missed' and data ->> 'service_id' = ${service.id}
    order by created_at`;
  t.match(missed, [
    { title: 'Nightly backup missed its heartbeat', message: /no heartbeat within 4200 s/ },
    { message: /started but did not finish within 600 s/ },
  ]);

  const paused = await createPush();
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${paused.id}`,
    payload: { enabled: false },
  });
  await age(paused.id, 100_000);
  await checkServices(deps, {});
  t.not((await read(paused.id)).state, 'down', 'a disabled service is not judged');
  const kuma = await ta.anon({ method: 'GET', url: `/api/push/${paused.push_token}` });
  t.equal(kuma.statusCode, 404, 'nor does it take heartbeats (Kuma: not found or not active)');
});

t.test('unknown tokens are 404 in each shape', async (t) => {
  const kuma = await ta.anon({ method: 'GET', url: '/api/push/not-a-token?status=up' });
  t.equal(kuma.statusCode, 404);
  t.match(kuma.json(), { ok: false, msg: String, code: 'PUSH_TOKEN_UNKNOWN', statusCode: 404 });
  for (const suffix of ['', '/start', '/fail', '/1']) {
    const hc = await ta.anon({ method: 'POST', url: `/api/ping/not-a-token${suffix}` });
    t.equal(hc.statusCode, 404);
    t.equal(hc.body, 'not found');
  }
});

t.test('each token is rate limited', async (t) => {
  const service = await createPush();
  const other = await createPush();
  for (let i = 0; i < heartbeatsPerMinute; i++) {
    const response = await ta.anon({ method: 'GET', url: `/api/ping/${service.push_token}` });
    if (response.statusCode !== 200) t.fail(`heartbeat ${i + 1} answered ${response.statusCode}`);
  }
  const limited = await ta.anon({ method: 'GET', url: `/api/ping/${service.push_token}` });
  t.equal(limited.statusCode, 429);
  t.equal(limited.body, 'rate limited');
  t.ok(Number(limited.headers['retry-after']) >= 1);
  const kuma = await ta.anon({ method: 'GET', url: `/api/push/${service.push_token}` });
  t.match(kuma.json(), { ok: false, code: 'RATE_LIMITED' });
  t.equal(
    (await ta.anon({ method: 'GET', url: `/api/push/${other.push_token}` })).statusCode,
    200,
    'per token',
  );
  t.equal((await results(service.id)).length, heartbeatsPerMinute, 'nothing past the limit is recorded');
});

t.test(
  "healthchecks.io's rid: a finish ends the start with its rid, its duration kept; each run late on its own",
  async (t) => {
    const service = await createPush({ interval_s: 3600, grace_s: 600 });
    const url = `/api/ping/${service.push_token}`;
    const nightly = '3f2a6b1e-9c4d-4e8f-a1b2-c3d4e5f60718';
    const weekly = '0b9e8d7c-6a5f-4e3d-9c2b-1a0f9e8d7c6b';
    /** Moves the open runs of the service back by `seconds`. */
    const ageRuns = (seconds: number) =>
      ta.sql`update push_runs set started_at = started_at - make_interval(secs => ${seconds})
      where service_id = ${service.id}`;

    t.equal((await ta.anon({ method: 'POST', url: `${url}/start?rid=${nightly}` })).body, 'OK');
    await ageRuns(90);
    t.equal((await ta.anon({ method: 'POST', url: `${url}/start?rid=${weekly}` })).body, 'OK');
    await ageRuns(30);
    t.equal(
      (await read(service.id)).push_started_at,
      null,
      'a start with a rid is not the start without one',
    );

    await ta.anon({ method: 'POST', url: `${url}?rid=${nightly.toUpperCase()}` });
    const [first] = await results(service.id);
    t.match(first, { ok: true, message: 'OK' });
    t.ok(
      first.latency_ms !== null && first.latency_ms >= 120_000 && first.latency_ms < 125_000,
      `the nightly run took 120 s (its duration kept: ${first.latency_ms} ms)`,
    );
    t.match(await read(service.id), { state: 'up', latency_ms: first.latency_ms });
    const open = await ta.sql<{ rid: string }[]>`select rid from push_runs where service_id = ${service.id}`;
    t.same(
      open.map((run) => run.rid),
      [weekly],
      'the weekly run is still open',
    );

    await ta.anon({ method: 'POST', url: `${url}/start` });
    await ta.anon({ method: 'POST', url: `${url}/0?rid=${nightly}` });
    t.equal((await results(service.id)).at(-1)?.latency_ms, null, 'a rid with no open start: no duration');
    t.ok((await read(service.id)).push_started_at, 'nor does it end the start without rid');
    await ta.anon({ method: 'POST', url });
    const last = (await results(service.id)).at(-1);
    t.ok(
      last?.latency_ms !== null && (last?.latency_ms ?? -1) >= 0,
      'a finish without rid ends the start without',
    );
    t.equal((await read(service.id)).push_started_at, null);
    t.equal(
      (await ta.sql`select 1 from push_runs where service_id = ${service.id}`).length,
      1,
      'and leaves the runs with a rid open',
    );

    await ageRuns(520);
    await checkServices(deps, {});
    t.equal((await read(service.id)).state, 'up', 'the weekly run is within its grace (550 s of 600)');
    await ta.anon({ method: 'POST', url: `${url}/start?rid=${nightly}` });
    await ageRuns(61);
    await checkServices(deps, {});
    t.match(
      await read(service.id),
      { state: 'down', message: `run ${weekly} started but did not finish within 600 s` },
      'the run past its grace turns the service down, named',
    );
    t.same(
      (await ta.sql<{ rid: string }[]>`select rid from push_runs where service_id = ${service.id}`).map(
        (r) => r.rid,
      ),
      [nightly],
      'the late run is given up on; the run in time stays open',
    );

    const bad = await ta.anon({ method: 'POST', url: `${url}/start?rid=not-a-uuid` });
    t.equal(bad.statusCode, 400);
    t.match(bad.json(), { code: 'PUSH_RID_INVALID', message: /rid must be a UUID/ });
    t.equal(
      (await ta.anon({ method: 'GET', url: `${url}/fail?rid=1234` })).json().code,
      'PUSH_RID_INVALID',
      'on a finish too',
    );
  },
);
