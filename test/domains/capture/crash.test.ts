// The real service as a child process, killed with SIGKILL while 200 ingest.url jobs are queued or running, then
// started again on the same data directory: every job completes, each URL ends up as exactly one document.
import t from 'tap';
import { processes, serviceDatabase, until } from '../../helpers/process.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const total = 200;
const token = 'crash-test-owner-token-0123456789abcdef';
const procs = processes(t);

// Slow-ish answers keep many jobs in flight when the process dies.
const origin = await startUpstream(t, (request, response) => {
  const n = /^\/doc\/(\d+)$/.exec(request.url ?? '')?.[1] ?? 'x';
  setTimeout(() => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`Document number ${n}: the word crashproof${n} appears only here.`);
  }, 250);
});
const url = (n: number) => `${origin.url}/doc/${n}`;

const dataDir = await procs.dataDir();

const env = {
  DATA_DIR: dataDir,
  OWNER_TOKEN: token,
  VOID_INGEST_ALLOW_PRIVATE: '1',
  WORKER_CONCURRENCY: '8',
  LOG_LEVEL: 'warn',
};

async function database() {
  const sql = await serviceDatabase(dataDir);
  t.teardown(() => sql.end({ timeout: 1 }).catch(() => undefined));
  return sql;
}

t.test('killed mid-way, restarted: every capture completes once, one document per URL', async (t) => {
  const first = await procs.startService(env);
  const captured: { capture_id: string; job_id: string }[] = [];
  for (let start = 0; start < total; start += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, total - start) }, async (_, i) => {
        const response = await fetch(`${first.url}/api/capture`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: url(start + i), idempotency_key: `crash-${start + i}` }),
        });
        if (response.status !== 202) throw new Error(`capture answered ${response.status}`);
        return (await response.json()) as { capture_id: string; job_id: string };
      }),
    );
    captured.push(...batch);
  }
  t.equal(captured.length, total);

  const before = await database();
  const atKill = await until(
    'some jobs done and some running',
    async () => {
      const [row] = await before<{ completed: number; locked: number }[]>`
        select (select count(*)::int from job_records where task = 'ingest.url' and state = 'completed') as completed,
               (select count(*)::int from graphile_worker.jobs where locked_at is not null) as locked`;
      return row.completed >= 20 && row.locked > 0 ? row : undefined;
    },
    40_000,
  );
  first.child.process.kill('SIGKILL');
  t.same(await first.child.exited, { code: null, signal: 'SIGKILL' });
  t.ok(atKill.completed < total, `killed with ${total - atKill.completed} jobs unfinished`);
  t.ok(atKill.locked > 0, `${atKill.locked} jobs were running when the process died`);
  await before.end({ timeout: 1 }).catch(() => undefined);

  const second = await procs.startService(env);
  t.teardown(async () => {
    second.child.process.kill('SIGTERM');
    await second.child.exited;
  });
  const sql = await database();
  await until(
    'every job to complete',
    async () => {
      const [row] = await sql<{ done: number }[]>`
        select count(*)::int as done from job_records where task = 'ingest.url' and state = 'completed'`;
      return row.done === total ? true : undefined;
    },
    45_000,
  ).catch(async (error: Error) => {
    const states = await sql`select state, count(*)::int from job_records group by state`;
    const queue =
      await sql`select locked_by, attempts, last_error, run_at, count(*)::int from graphile_worker.jobs group by 1, 2, 3, 4`;
    const pools = await sql`select * from worker_pools`;
    const processesRows = await sql`select * from worker_processes`;
    throw new Error(
      `${error.message}: ${JSON.stringify({ states, queue, pools, processesRows })}\n${second.child.output()}`,
    );
  });

  const perUrl = await sql<{ url: string; count: number }[]>`
    select url, count(*)::int as count from source_docs group by url`;
  t.equal(perUrl.length, total, 'a document for every URL');
  t.ok(
    perUrl.every((row) => row.count === 1),
    'exactly one document per URL',
  );
  t.same(new Set(perUrl.map((row) => row.url)), new Set(Array.from({ length: total }, (_, n) => url(n))));
  const captures = await sql<{ state: string; count: number; docs: number }[]>`
    select state, count(*)::int as count, count(distinct source_doc_id)::int as docs from captures group by state`;
  t.same(
    captures,
    [{ state: 'completed', count: total, docs: total }],
    'every capture completed, each with its own document',
  );
  const records = await sql<{ id: string; state: string }[]>`
    select id::text, state from job_records where task in ('ingest.url', 'ingest.video')`;
  t.equal(records.length, total, 'one job per capture, no duplicate jobs');
  t.same(new Set(records.map((record) => record.id)), new Set(captured.map((capture) => capture.job_id)));
  // Only the captures' jobs: the live hub's recurring work (the cron tick, health checks, scans) comes and goes.
  const [{ left }] = await sql<{ left: number }[]>`
    select count(*)::int as left from graphile_worker.jobs where task_identifier in ('ingest.url', 'ingest.video')`;
  t.equal(left, 0, 'no capture job is left in the queue');
  const [{ live }] = await sql<{ live: number }[]>`select count(*)::int as live from worker_processes`;
  t.equal(live, 1, 'the dead process was forgotten, the running one is registered');

  const response = await fetch(`${second.url}/api/search?q=crashproof137`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const hits = (await response.json()) as { items: { title: string }[] };
  t.equal(hits.items.length, 1, 'documents are searchable after the restart');
  // Some URLs were fetched twice (the jobs in flight at the kill): idempotent executors, still one document.
  t.ok(origin.requests.length >= total);
});
