// Dashboard benchmark: cached reads of the layout, weather, host and storage cards over real HTTP, each next to a
// bare Fastify route returning the same bytes, in one run. Each card must reach at least half the bare route's
// throughput (exit 1 otherwise): the card routes answer from memory, so auth, the cache and serialisation are all
// they may cost. Upstreams are the test suite's fakes (Open-Meteo, Proxmox VE) on loopback.
//
// Sizes: BENCH_REQUESTS (per card and side, default 10000) and BENCH_CONCURRENCY (default 8).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import postgres from 'postgres';
import { Pool } from 'undici';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { createSql, endSql } from '../lib/db.ts';
import { migrate } from '../lib/migrate.ts';
import { fakeOpenMeteo, fakeProxmox, pveToken } from '../test/domains/dashboard/fakes.ts';
import { scratchDatabase } from './lib/database.ts';

const requests = Number(process.env.BENCH_REQUESTS ?? 10_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
// Hub and bare batches alternate, so load from elsewhere on the machine falls on both alike.
const rounds = 20;
const minimumRatio = 0.5;

const cleanups: (() => unknown)[] = [];
const teardown = { teardown: (fn: () => unknown) => cleanups.push(fn) };

/** Seconds to send `count` requests, `concurrency` at a time. */
async function throughput(
  pool: Pool,
  target: string,
  headers: Record<string, string>,
  count = requests,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const response = await pool.request({ method: 'GET', path: target, headers });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${target} answered ${response.statusCode}`);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (performance.now() - started) / 1000;
}

async function main(): Promise<boolean> {
  const db = await scratchDatabase('dashboard');
  cleanups.push(() => db.close());
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-data-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const setup = postgres(db.url, { max: 1, onnotice: () => undefined });
  await migrate(setup);
  await setup.end();

  const meteo = await fakeOpenMeteo(teardown);
  const pve = await fakeProxmox(teardown);
  const ownerToken = randomBytes(24).toString('hex');
  const config = loadConfig({
    DATA_DIR: dataDir,
    OWNER_TOKEN: ownerToken,
    LOG_LEVEL: 'silent',
    WEATHER_URL: meteo.url,
    WEATHER_LATITUDE: '52.52',
    WEATHER_LONGITUDE: '13.41',
    PVE_URL: pve.url,
    PVE_TOKEN: pveToken,
    // The run measures cached reads: nothing expires while it lasts.
    PVE_CACHE_SECONDS: '3600',
  });
  const sql = createSql(db.url, { warn: () => undefined });
  const app = await buildApp({ config, sql, databaseUrl: db.url, ownerToken, worker: 'off', cron: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  cleanups.unshift(async () => {
    await app.close();
    await endSql(sql);
  });
  const hub = new Pool(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`, {
    connections: concurrency,
  });
  cleanups.unshift(() => hub.close());
  const headers = { authorization: `Bearer ${ownerToken}` };

  const cards = ['/api/dashboard/layout', '/api/weather', '/api/host', '/api/storage'];
  // Prime every cache and keep each card's bytes for the bare route.
  const bodies = new Map<string, string>();
  for (const card of cards) {
    const response = await hub.request({ method: 'GET', path: card, headers });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`${card}: ${response.statusCode} ${text}`);
    bodies.set(card, text);
  }

  const bare = Fastify({ logger: false });
  bare.get('/bare/*', async (request, reply) => {
    const card = `/api/${(request.params as { '*': string })['*']}`;
    return reply.type('application/json; charset=utf-8').send(bodies.get(card));
  });
  await bare.listen({ host: '127.0.0.1', port: 0 });
  cleanups.unshift(() => bare.close());
  const plain = new Pool(`http://127.0.0.1:${(bare.server.address() as { port: number }).port}`, {
    connections: concurrency,
  });
  cleanups.unshift(() => plain.close());

  console.log(
    `# ${requests} requests per card and side, ${concurrency} at a time, hub and bare alternating in ${rounds} batches`,
  );
  console.log('card                      hub req/s   bare req/s   ratio   bytes');
  let ok = true;
  for (const card of cards) {
    const barePath = card.replace('/api/', '/bare/');
    // Warm-up: the JIT sees both routes before anything is timed.
    await throughput(hub, card, headers, 500);
    await throughput(plain, barePath, {}, 500);
    const batch = Math.ceil(requests / rounds);
    let hubSeconds = 0;
    let bareSeconds = 0;
    for (let round = 0; round < rounds; round++) {
      hubSeconds += await throughput(hub, card, headers, batch);
      bareSeconds += await throughput(plain, barePath, {}, batch);
    }
    const best = { hub: (batch * rounds) / hubSeconds, bare: (batch * rounds) / bareSeconds };
    const ratio = best.hub / best.bare;
    if (ratio < minimumRatio) ok = false;
    console.log(
      `${card.padEnd(24)} ${best.hub.toFixed(0).padStart(10)} ${best.bare.toFixed(0).padStart(12)} ` +
        `${ratio.toFixed(2).padStart(7)} ${String(bodies.get(card)?.length).padStart(7)}${ratio < minimumRatio ? '  BELOW 0.5' : ''}`,
    );
  }
  console.log(
    `# upstream calls during the run: Open-Meteo ${meteo.forecasts()}, Proxmox ${pve.requests.length}`,
  );
  return ok;
}

let passed = false;
try {
  passed = await main();
} finally {
  for (const cleanup of cleanups) await cleanup();
}
if (!passed) {
  console.error(`a card read below ${minimumRatio}x the bare route`);
  process.exit(1);
}
