// Several hub processes on one database behave as one hub: two API-only processes (WORKER_MODE=off) and two
// `npm run worker` processes, real child processes on one database of the test cluster. A card change written
// through one API process reaches a dashboard stream held by the other, an agent's rate limit counts requests to
// both, each cron item starts once in its minute whichever worker sees it, every job runs once, and the job of a worker
// killed mid-way is finished by the other. The processes are started once and shared by the tests below.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import t from 'tap';
import { addJob } from '../../worker/enqueue.ts';
import { backupRun } from '../domains/dashboard/seed.ts';
import { testDatabase } from '../helpers/app.ts';
import { type Child, processes, type Service, until } from '../helpers/process.ts';

// Four processes to start on a busy machine, and up to a minute's wait for the cron's next minute.
t.setTimeout(400_000);

const token = 'several-processes-owner-token-0123456789';
const procs = processes(t);
const db = await testDatabase(t);
const { sql } = db;
await sql`create table test_slow_runs (note text not null, pid integer not null, finished boolean not null)`;

const dataDir = await procs.dataDir();
const env = {
  DATABASE_URL: db.url,
  DATA_DIR: dataDir,
  OWNER_TOKEN: token,
  HUB_SECRET_KEY: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'warn',
};
// The workers first (they migrate under an advisory lock, so one applies what is left and the other finds it
// done): the wait for their cron's next minute then runs while the API processes start.
const workers: Child[] = [0, 1].map(() =>
  procs.spawn('test/fixtures/worker-with-slow-task.ts', { ...env, LOG_LEVEL: 'info' }),
);
await Promise.all(workers.map((worker) => worker.waitForOutput(/worker running/, 60_000)));
// The first minute both workers' cron schedules see from its start.
const cronMinute = new Date(Math.ceil((Date.now() + 1000) / 60_000) * 60_000);
const apis: Service[] = [];
for (let i = 0; i < 2; i++) {
  apis.push(await procs.startService({ ...env, WORKER_MODE: 'off', AGENT_RATE_LIMIT: '4' }, 90_000));
}

async function api(service: Service, method: string, path: string, body?: unknown, bearer = token) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json().catch(() => null)) as Record<string, unknown>,
  };
}

/** The `card` events of the owner's dashboard stream on `service`, as they come. */
async function cardStream(service: Service) {
  const cards: { type: string; data: Record<string, unknown> }[] = [];
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http
      .get(`${service.url}/api/dashboard/stream`, { headers: { authorization: `Bearer ${token}` } }, resolve)
      .on('error', reject);
  });
  t.teardown(() => response.destroy());
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^event: card\ndata: (.+)$/m.exec(block)?.[1];
      if (data) cards.push(JSON.parse(data));
    }
  });
  return cards;
}

t.test('a card change written through one API process reaches a stream held by the other', async (t) => {
  const [first, second] = apis;
  const cards = await cardStream(second);
  await until('the stream to send the backups card', async () =>
    cards.some((card) => card.type === 'backups') ? true : undefined,
  );
  const posted = await api(first, 'POST', '/api/backups', backupRun);
  t.equal(posted.status, 201);
  // The card's own refresh is a minute away: only the announcement brings it sooner.
  const pushed = await until(
    'the new run on the other process',
    async () =>
      cards.find(
        (card) =>
          card.type === 'backups' && (card.data.last_run as { status?: string } | null)?.status === 'ok',
      ),
    10_000,
  );
  t.match(pushed.data, { last_run: { status: 'ok', target: { name: 'nas' } } });
});

t.test('an agent’s rate limit counts its requests to both API processes', async (t) => {
  const [first, second] = apis;
  const agent = await api(first, 'POST', '/api/agents', { name: 'spread', tier: 'read' });
  t.equal(agent.status, 201);
  const minted = await api(second, 'POST', '/api/agent-tokens', { agent_id: agent.body.id });
  t.equal(minted.status, 201);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const service = apis[i % 2];
    statuses.push(
      (
        await api(
          service,
          'GET',
          `/api/agents/${agent.body.id}/profile`,
          undefined,
          String(minted.body.token),
        )
      ).status,
    );
  }
  t.same(statuses, [200, 200, 200, 200, 429], 'four of four a minute, whichever process answers');
});

t.test('each job runs once across the two workers', async (t) => {
  const notes = Array.from({ length: 20 }, (_, i) => `once-${i}`);
  for (const note of notes) await addJob(sql, 'test.slow', { note, ms: 50 });
  const runs = await until('every job to finish', async () => {
    const rows = await sql<{ note: string; pid: number }[]>`
      select note, pid from test_slow_runs where finished and note like 'once-%'`;
    return rows.length >= notes.length ? rows : undefined;
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const [{ count }] = await sql<{ count: number }[]>`
    select count(*)::int from test_slow_runs where note like 'once-%'`;
  t.equal(count, notes.length * 2, 'each job started once and finished once');
  t.same([...new Set(runs.map((run) => run.note))].sort(), [...notes].sort());
});

t.test('each cron item due in a minute starts once, though two workers keep the schedule', async (t) => {
  // Both workers are alive at that minute (the kill comes after); counted some seconds later, late enough for a
  // second tick to have started its items again, were there one.
  const wait = cronMinute.getTime() + 8000 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  // The tick enqueues each item due with a job key naming the item and the minute (worker/cron.ts).
  const started = await sql<{ job_key: string; jobs: number }[]>`
    select job_key, count(*)::int as jobs from job_records
    where job_key like ${`cron:%:${cronMinute.toISOString()}`}
    group by job_key order by job_key`;
  t.ok(
    started.some((item) => item.job_key.startsWith('cron:health.check:')),
    'the every-minute health check was started',
  );
  t.same(
    started.filter((item) => item.jobs !== 1),
    [],
    `each of ${started.length} items started once at ${cronMinute.toISOString()}`,
  );
});

t.test('a worker killed mid-job: the other worker runs the job to its end', async (t) => {
  const job = await addJob(sql, 'test.slow', { note: 'killed', ms: 3000 });
  const started = await until('the job to start', async () => {
    const [row] = await sql<{ pid: number }[]>`select pid from test_slow_runs where note = 'killed'`;
    return row;
  });
  const victim = workers.find((worker) => worker.pid === started.pid);
  const survivor = workers.find((worker) => worker.pid !== started.pid);
  if (!victim || !survivor) throw new Error(`no worker of pid ${started.pid}`);
  victim.process.kill('SIGKILL');
  t.same(await victim.exited, { code: null, signal: 'SIGKILL' });

  const finished = await until(
    'the other worker to finish the job',
    async () => {
      const [row] = await sql<{ pid: number }[]>`
        select pid from test_slow_runs where note = 'killed' and finished`;
      return row;
    },
    20_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; the surviving worker printed:\n${survivor.output()}`);
  });
  t.equal(finished.pid, survivor.pid, 'finished by the surviving worker');
  const [record] = await sql`select state from job_records where id = ${job.id}`;
  t.same(record, { state: 'completed' });
  t.match(survivor.output(), /freed 1 job\(s\) locked by a worker process that is gone/);
});
