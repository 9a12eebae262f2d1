// POST /api/capture: URL rules, video versus page routing, idempotency (also under 50 concurrent requests), the
// default space and agent scope. The worker is off here: these tests assert what is recorded and queued.
import t from 'tap';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';

async function queued(ta: TestApp) {
  return ta.sql<{ id: string; task: string; payload: Record<string, unknown>; key: string | null }[]>`
    select j.id::text, j.task_identifier as task, p.payload, j.key
    from graphile_worker.jobs j join graphile_worker._private_jobs p on p.id = j.id
    order by j.id`;
}

function post(ta: TestApp, payload: Record<string, unknown>) {
  return ta.asOwner({ method: 'POST', url: '/api/capture', payload });
}

t.test('a page URL becomes an ingest.url job, recorded with the capture', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta, 'Reading');
  const res = await post(ta, {
    url: 'https://example.org/articles/1?ref=x',
    idempotency_key: 'k-1',
    space_id: space.id,
    title: 'An article',
  });
  t.equal(res.statusCode, 202);
  const body = res.json();
  t.match(body, {
    capture_id: /^[0-9a-f-]{36}$/,
    job_id: /^\d+$/,
    task: 'ingest.url',
    idempotency_key: 'k-1',
    duplicate: false,
    url: 'https://example.org/articles/1?ref=x',
    space_id: space.id,
    title: 'An article',
    state: 'queued',
  });
  const jobs = await queued(ta);
  t.equal(jobs.length, 1);
  t.equal(jobs[0].id, body.job_id);
  t.equal(jobs[0].task, 'ingest.url');
  t.equal(jobs[0].key, `capture:${body.capture_id}`);
  t.match(jobs[0].payload, {
    capture_id: body.capture_id,
    url: 'https://example.org/articles/1?ref=x',
    space_id: space.id,
    title: 'An article',
    origin: 'url',
  });
  const [record] = await ta.sql`select state, task from job_records where id = ${body.job_id}`;
  t.same(record, { state: 'queued', task: 'ingest.url' }, 'the jobs API knows the job from the start');
});

t.test('video hosts exactly as listed go to ingest.video; look-alikes are pages', async (t) => {
  const ta = await testApp(t);
  const cases: [string, string][] = [
    ['https://youtube.com/watch?v=a1', 'ingest.video'],
    ['https://www.youtube.com/watch?v=a2', 'ingest.video'],
    ['https://m.youtube.com/watch?v=a3', 'ingest.video'],
    ['https://youtu.be/a4', 'ingest.video'],
    ['HTTPS://WWW.YOUTUBE.COM/watch?v=a5', 'ingest.video'],
    ['https://youtube.com./watch?v=a6', 'ingest.video'],
    ['http://youtu.be:8080/a7', 'ingest.video'],
    ['https://notyoutube.com/watch?v=b1', 'ingest.url'],
    ['https://youtube.com.evil.test/watch?v=b2', 'ingest.url'],
    ['https://music.youtube.com/watch?v=b3', 'ingest.url'],
    ['https://youtube.co/watch?v=b4', 'ingest.url'],
    ['https://evil.test/https://youtube.com/watch', 'ingest.url'],
    ['https://www.youtube.com.evil.test/', 'ingest.url'],
    ['https://youtu.be.evil.test/x', 'ingest.url'],
  ];
  for (const [url, task] of cases) {
    const res = await post(ta, { url, idempotency_key: `route-${url}` });
    t.equal(res.statusCode, 202, url);
    t.equal(res.json().task, task, url);
  }
  const jobs = await queued(ta);
  t.same(
    jobs.map((job) => job.task),
    cases.map(([, task]) => task),
    'each capture queued the job its response named',
  );
  const video = jobs.find((job) => job.task === 'ingest.video');
  t.equal(video?.payload.origin, 'video');
});

t.test('URLs that are not http(s), malformed or aimed at a blocked address are refused', async (t) => {
  const ta = await testApp(t);
  const refused = [
    'ftp://example.org/file',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,hi',
    'gopher://example.org/',
    'not a url',
    '//example.org/relative',
    'https://user:secret@example.org/',
    'http://127.0.0.1/admin',
    'http://2130706433/',
    'http://[::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
  ];
  for (const url of refused) {
    const res = await post(ta, { url, idempotency_key: `bad-${url}` });
    t.equal(res.statusCode, 400, url);
    t.match(res.json().message, /URL refused|body\/url/, url);
  }
  t.equal((await queued(ta)).length, 0, 'nothing was queued');
  const [{ count }] = await ta.sql`select count(*)::int from captures`;
  t.equal(count, 0, 'nothing was recorded');

  const missingKey = await post(ta, { url: 'https://example.org/' });
  t.equal(missingKey.statusCode, 400);
  const extra = await post(ta, { url: 'https://example.org/', idempotency_key: 'x', priority: 1 });
  t.equal(extra.statusCode, 400, 'unknown fields are refused');
  const badSpace = await post(ta, { url: 'https://example.org/', idempotency_key: 'x', space_id: 'nope' });
  t.equal(badSpace.statusCode, 400);
  const noSpace = await post(ta, {
    url: 'https://example.org/',
    idempotency_key: 'x',
    space_id: '00000000-0000-4000-8000-000000000000',
  });
  t.equal(noSpace.statusCode, 404);
});

t.test('the same idempotency key returns the first capture and queues nothing more', async (t) => {
  const ta = await testApp(t);
  const first = await post(ta, { url: 'https://example.org/a', idempotency_key: 'same' });
  t.equal(first.statusCode, 202);
  const again = await post(ta, { url: 'https://example.org/a', idempotency_key: 'same' });
  t.equal(again.statusCode, 202);
  t.same(again.json(), { ...first.json(), duplicate: true });
  const other = await post(ta, { url: 'https://youtu.be/zzz', idempotency_key: 'same' });
  t.equal(other.statusCode, 409, 'a key is bound to its first capture: another URL is refused');
  t.match(other.json(), {
    code: 'IDEMPOTENCY_KEY_REUSED',
    message: /another URL \(https:\/\/example\.org\/a\)/,
  });
  t.equal((await queued(ta)).length, 1);
});

t.test('idempotency keys are unique per space', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const inWork = await post(ta, { url: 'https://example.org/w', idempotency_key: 'k1', space_id: work.id });
  t.equal(inWork.statusCode, 202);
  const agent = await createAgent(ta, { tier: 'owner', space_id: home.id });
  const inHome = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/h', idempotency_key: 'k1' },
  });
  t.equal(inHome.statusCode, 202, 'a scoped agent reuses a key of another space without a conflict');
  t.match(inHome.json(), { duplicate: false, space_id: home.id, url: 'https://example.org/h' });
  t.not(inHome.json().capture_id, inWork.json().capture_id, 'its own capture');
  const again = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/h', idempotency_key: 'k1' },
  });
  t.match(
    again.json(),
    { duplicate: true, capture_id: inHome.json().capture_id },
    'in its space the key holds',
  );
  const reused = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/other', idempotency_key: 'k1' },
  });
  t.equal(reused.statusCode, 409);
  t.equal(reused.json().code, 'IDEMPOTENCY_KEY_REUSED');
  t.match(reused.json().message, /https:\/\/example\.org\/h\b/, "naming only its own space's URL");
  t.equal((await queued(ta)).length, 2, 'one job per space');
});

t.test('50 concurrent requests with one key make one capture and one job', async (t) => {
  const ta = await testApp(t);
  const responses = await Promise.all(
    Array.from({ length: 50 }, () =>
      post(ta, { url: 'https://example.org/race', idempotency_key: 'race-key' }),
    ),
  );
  t.same(
    responses.map((res) => res.statusCode),
    Array(50).fill(202),
  );
  const bodies = responses.map((res) => res.json());
  t.equal(bodies.filter((body) => !body.duplicate).length, 1, 'exactly one request created the capture');
  t.equal(new Set(bodies.map((body) => body.capture_id)).size, 1);
  t.equal(new Set(bodies.map((body) => body.job_id)).size, 1);
  t.equal((await queued(ta)).length, 1, 'one job queued');
  const [{ count }] = await ta.sql`select count(*)::int from captures`;
  t.equal(count, 1);
  const [{ records }] = await ta.sql`select count(*)::int as records from job_records`;
  t.equal(records, 1);
});

t.test('without space_id captures go to the Inbox space, created once', async (t) => {
  const ta = await testApp(t);
  const a = await post(ta, { url: 'https://example.org/1', idempotency_key: 'i1' });
  const b = await post(ta, { url: 'https://example.org/2', idempotency_key: 'i2' });
  const spaces = await ta.sql<{ id: string; name: string }[]>`select id, name from spaces`;
  t.same(
    spaces.map((s) => s.name),
    ['Inbox'],
  );
  t.equal(a.json().space_id, spaces[0].id);
  t.equal(b.json().space_id, spaces[0].id);
});

t.test('agents capture into the spaces in their scope; the owner anywhere', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const scoped = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const unscoped = await createAgent(ta, { tier: 'owner' });
  const reader = await createAgent(ta, { tier: 'read' });
  const refused = await ta.asAgent(reader.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/r1', idempotency_key: 'r1' },
  });
  t.equal(refused.statusCode, 403);
  t.equal(refused.json().code, 'TIER_CANNOT_WRITE', 'a read-tier agent never writes, captures included');

  const inScope = await ta.asAgent(scoped.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/s1', idempotency_key: 's1', space_id: home.id },
  });
  t.equal(inScope.statusCode, 202, "a suggest-tier agent's capture waits for the owner");
  t.match(inScope.json(), { pending_change_id: String, status: 'pending' });
  t.equal((await queued(ta)).length, 0, 'nothing is queued before approval');
  const outside = await ta.asAgent(scoped.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/s2', idempotency_key: 's2', space_id: work.id },
  });
  t.equal(outside.statusCode, 404, 'a space outside the scope answers as if it did not exist');
  t.equal(outside.json().code, 'SPACE_NOT_FOUND');
  const defaulted = await ta.asAgent(scoped.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/s3', idempotency_key: 's3' },
  });
  const [proposal] = await ta.sql<{ space_id: string; entity_type: string }[]>`
    select space_id, entity_type from pending_changes where id = ${defaulted.json().pending_change_id}`;
  t.same(
    proposal,
    { space_id: home.id, entity_type: 'capture' },
    "a scoped agent's captures default to its space",
  );
  const approved = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${inScope.json().pending_change_id}/approve`,
  });
  t.equal(approved.statusCode, 200);
  t.equal(approved.json().status, 'applied');
  const [performed] = await ta.sql<{ id: string; url: string; space_id: string }[]>`
    select id, url, space_id from captures where idempotency_key = 's1'`;
  t.same(performed, {
    id: approved.json().result_entity_id,
    url: 'https://example.org/s1',
    space_id: home.id,
  });
  t.equal((await queued(ta)).length, 1, 'the approval performed the capture');
  const global = await ta.asAgent(unscoped.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/s4', idempotency_key: 's4', space_id: work.id },
  });
  t.equal(global.statusCode, 202);
  const [audited] = await ta.sql<{ action: string; entity_type: string; entity_id: string }[]>`
    select action, entity_type, entity_id from audit_log where entity_type = 'capture' and action = 'apply_direct'`;
  t.same(
    audited,
    { action: 'apply_direct', entity_type: 'capture', entity_id: global.json().capture_id },
    "an owner-tier agent's capture is applied at once and audited",
  );
  const owners = await post(ta, { url: 'https://example.org/s5', idempotency_key: 's5', space_id: work.id });
  t.equal(owners.statusCode, 202);

  // Keys are unique per space: a key used in another space is no conflict, so it reveals nothing.
  const sameKey = await ta.asAgent(scoped.token, {
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/s6', idempotency_key: 's5' },
  });
  t.equal(sameKey.statusCode, 202, "another space's key is simply free here");
  t.match(sameKey.json(), { pending_change_id: String, status: 'pending' });
  const anon = await ta.anon({
    method: 'POST',
    url: '/api/capture',
    payload: { url: 'https://example.org/s7', idempotency_key: 's7' },
  });
  t.equal(anon.statusCode, 401);
  t.equal((await queued(ta)).length, 3);
});
