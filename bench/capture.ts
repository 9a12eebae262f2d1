// Capture benchmark: captures per second end to end (POST /api/capture over real HTTP → ingest.url job fetches a
// local origin → the source document is stored and searchable), next to graphile-worker's own throughput for
// no-op jobs (add_job in its own transaction → job done) on the same database, machine and worker concurrency,
// in alternating rounds of the same run; prints both and their ratio. A sample of the captured documents is then
// looked up through GET /api/search to check that "done" really means "searchable".
//
// Database: an embedded cluster under the system temp dir (removed afterwards), or, with DATABASE_URL, a scratch
// database created next to the one named there (its role needs CREATEDB) and dropped afterwards.
// Sizes: BENCH_CAPTURES (per round, default 300), BENCH_ROUNDS (3), BENCH_CONCURRENCY (client and worker, 8).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Logger, run, runMigrations } from 'graphile-worker';
import postgres from 'postgres';
import { Pool } from 'undici';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { createSql, endSql } from '../lib/db.ts';
import { migrate } from '../lib/migrate.ts';
import { scratchDatabase } from './lib/database.ts';

const sizes = {
  captures: Number(process.env.BENCH_CAPTURES ?? 300),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 8),
  warmup: 30,
};

/** The local origin: a small article per path, each with a word of its own so it can be searched for. */
async function startOrigin(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const id = (request.url ?? '/').replace(/[^a-z0-9]/gi, '');
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html><head><title>Bench page ${id}</title></head><body><article><h1>Bench page ${id}</h1>` +
        `<p>This page carries the marker word benchmark${id} and a few sentences of ordinary prose, so the ` +
        'extractor, the upsert and the generated search vector all do their real work for every capture.</p>' +
        '<p>A second paragraph adds some length, as real pages have more than one paragraph of text.</p>' +
        '</article></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `count` calls with at most `concurrency` in flight; resolves with each call's latency in ms. */
async function inFlight(count: number, concurrency: number, call: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        const begin = performance.now();
        await call(i);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  return latencies;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

function percentile(values: number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
}

interface Round {
  count: number;
  seconds: number;
  /** Per item: request (or add_job) latency, and enqueue-to-done latency measured by the database. */
  requestMs: number[];
  doneMs: number[];
}

function line(label: string, rounds: Round[]): { perSecond: number; text: string } {
  const count = rounds.reduce((sum, round) => sum + round.count, 0);
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0);
  const requests = rounds.flatMap((round) => round.requestMs);
  const done = rounds.flatMap((round) => round.doneMs);
  const perSecond = count / seconds;
  const text = [
    label.padEnd(44),
    String(count).padStart(6),
    `${seconds.toFixed(2)} s`.padStart(9),
    `${perSecond.toFixed(1)}/s`.padStart(10),
    `enqueue p50 ${percentile(requests, 0.5).toFixed(1)} ms p95 ${percentile(requests, 0.95).toFixed(1)} ms`,
    `to done p50 ${percentile(done, 0.5).toFixed(0)} ms p95 ${percentile(done, 0.95).toFixed(0)} ms`,
  ].join('  ');
  return { perSecond, text };
}

async function main() {
  const db = await scratchDatabase('capture');
  const origin = await startOrigin();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-capture-data-'));
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const setup = postgres(db.url, { max: 1, onnotice: () => undefined });
    await migrate(setup);
    await setup.end();
    const quiet = new Logger(() => () => undefined);
    await runMigrations({ connectionString: db.url, logger: quiet });

    const ownerToken = randomBytes(24).toString('hex');
    const config = loadConfig({
      DATA_DIR: dataDir,
      OWNER_TOKEN: ownerToken,
      LOG_LEVEL: 'silent',
      // The origin is on loopback; the guard's address check would refuse it.
      VOID_INGEST_ALLOW_PRIVATE: '1',
      WORKER_CONCURRENCY: String(sizes.concurrency),
    });
    const sql = createSql(db.url, { warn: () => undefined }, sizes.concurrency + 4);
    const app = await buildApp({ config, sql, databaseUrl: db.url, ownerToken, worker: 'in-process' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(async () => {
      await app.close();
      await endSql(sql);
    });
    const { port } = app.server.address() as AddressInfo;
    const client = new Pool(`http://127.0.0.1:${port}`, { connections: sizes.concurrency });
    cleanups.push(() => client.close());
    const headers = { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' };

    // graphile-worker alone: the same concurrency, a task that does nothing, no job records.
    const noop = await run({
      connectionString: db.url,
      concurrency: sizes.concurrency,
      noHandleSignals: true,
      pollInterval: 1000,
      parsedCronItems: [],
      taskList: { 'bench.noop': async () => undefined },
      logger: quiet,
    });
    cleanups.push(() => noop.stop());
    const jobsSql = postgres(db.url, { max: sizes.concurrency, onnotice: () => undefined });
    cleanups.push(() => jobsSql.end());

    let serial = 0;
    const captureRound = async (count: number): Promise<Round> => {
      const first = serial;
      serial += count;
      const started = performance.now();
      const requestMs = await inFlight(count, sizes.concurrency, async (i) => {
        const response = await client.request({
          method: 'POST',
          path: '/api/capture',
          headers,
          body: JSON.stringify({ url: `${origin.url}/p${first + i}`, idempotency_key: `bench-${first + i}` }),
        });
        await response.body.dump();
        if (response.statusCode !== 202) throw new Error(`capture answered ${response.statusCode}`);
      });
      await until(async () => {
        const [row] = await jobsSql<{ open: number }[]>`
          select count(*)::int as open from captures where state <> 'completed'`;
        return row.open === 0;
      }, 'the captures to complete');
      const seconds = (performance.now() - started) / 1000;
      const keys = Array.from({ length: count }, (_, i) => `bench-${first + i}`);
      const done = await jobsSql<{ ms: number }[]>`
        select extract(epoch from (d.updated_at - c.created_at)) * 1000 as ms
        from captures c join source_docs d on d.id = c.source_doc_id
        where c.idempotency_key = any(${keys})`;
      const failed = await jobsSql`select 1 from captures where state = 'failed'`;
      if (failed.length > 0) throw new Error(`${failed.length} captures failed`);
      return { count, seconds, requestMs, doneMs: done.map((row) => Number(row.ms)) };
    };

    const noopRound = async (count: number): Promise<Round> => {
      const started = performance.now();
      const ids: string[] = [];
      const requestMs = await inFlight(count, sizes.concurrency, async () => {
        const [job] = await jobsSql<{ id: string }[]>`
          select id::text from graphile_worker.add_job('bench.noop', ${jobsSql.json({ bench: true })}::json)`;
        ids.push(job.id);
      });
      await until(async () => {
        const [row] = await jobsSql<{ open: number }[]>`
          select count(*)::int as open from graphile_worker.jobs where task_identifier = 'bench.noop'`;
        return row.open === 0;
      }, 'the no-op jobs to complete');
      const seconds = (performance.now() - started) / 1000;
      // graphile-worker deletes completed jobs; per-job latency is not recorded, only the round's wall time.
      return { count: ids.length, seconds, requestMs, doneMs: [] };
    };

    await captureRound(sizes.warmup);
    await noopRound(sizes.warmup);
    const captures: Round[] = [];
    const noops: Round[] = [];
    // Alternating rounds, so a change in the machine's load during the run touches both alike.
    for (let round = 0; round < sizes.rounds; round++) {
      captures.push(await captureRound(sizes.captures));
      noops.push(await noopRound(sizes.captures));
    }

    // Done means searchable: a sample of the documents is found through the search route.
    const sample = [0, Math.floor(serial / 2), serial - 1];
    for (const n of sample) {
      const response = await client.request({
        method: 'GET',
        path: `/api/search?q=benchmarkp${n}&kinds=source_docs`,
        headers: { authorization: headers.authorization },
      });
      const body = (await response.body.json()) as { total: number };
      if (body.total !== 1) throw new Error(`benchmarkp${n} found ${body.total} documents, expected 1`);
    }

    console.log(
      `# ${sizes.rounds} alternating rounds of ${sizes.captures}, concurrency ${sizes.concurrency} (HTTP client and ` +
        `worker), origin on loopback; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
    );
    const capture = line('captures end to end (POST → searchable doc)', captures);
    const jobs = line('graphile-worker no-op jobs (add_job → done)', noops);
    console.log(capture.text);
    console.log(jobs.text.replace(/\s+to done p50 NaN ms p95 NaN ms$/, ''));
    console.log(`ratio captures / no-op jobs: ${(capture.perSecond / jobs.perSecond).toFixed(3)}`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error));
    await origin.close();
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
