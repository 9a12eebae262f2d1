// Icons benchmark: cached GET /api/icons/<slug>.png through the whole hub (auth hooks, query validation, the
// source lookup, the render cache, the revalidation headers) next to a bare Fastify route sending the same bytes,
// in alternating rounds of the same run, over real HTTP; prints both and their ratio (target: at least 0.5×). Also
// prints the first render's time (a cold cache: the simple-icons package loaded, the SVG rendered, written to disk).
//
// Database: as bench/capture.ts (an embedded cluster under the system temp dir, or a scratch database next to
// DATABASE_URL). Sizes: BENCH_REQUESTS (per round, default 5000), BENCH_ROUNDS (3), BENCH_CONCURRENCY (16).
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { renderStats } from '../domains/icons/render.ts';
import { createSql, endSql } from '../lib/db.ts';
import { migrate } from '../lib/migrate.ts';
import { scratchDatabase } from './lib/database.ts';

const sizes = {
  requests: Number(process.env.BENCH_REQUESTS ?? 5000),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 16),
};
const iconPath = '/api/icons/github.png?size=64';
/** Read afresh each time (a plain property read would be narrowed by the checks before it). */
const renders = (): number => renderStats.renders;

async function hammer(origin: string, url: string, count: number): Promise<number> {
  const pool = new Pool(origin, { connections: sizes.concurrency, pipelining: 1 });
  let next = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: sizes.concurrency }, async () => {
      while (next < count) {
        next++;
        const response = await pool.request({ method: 'GET', path: url });
        if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`);
        await response.body.arrayBuffer();
      }
    }),
  );
  const seconds = (performance.now() - begin) / 1000;
  await pool.close();
  return seconds;
}

async function main() {
  const db = await scratchDatabase('icons');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-icons-data-'));
  const sql = createSql(db.url, { warn: console.error });
  try {
    await migrate(sql);
    const config = loadConfig({
      DATA_DIR: dataDir,
      OWNER_TOKEN: 'bench-owner-token-0123456789abcdef',
      LOG_LEVEL: 'silent',
    });
    const hub = await buildApp({
      config,
      sql,
      databaseUrl: db.url,
      ownerToken: 'bench-owner-token-0123456789abcdef',
      worker: 'off',
      cron: false,
    });
    await hub.listen({ port: 0, host: '127.0.0.1' });
    const hubOrigin = `http://127.0.0.1:${(hub.server.address() as AddressInfo).port}`;

    const begin = performance.now();
    const first = await fetch(`${hubOrigin}${iconPath}`);
    const bytes = Buffer.from(await first.arrayBuffer());
    const firstMs = performance.now() - begin;
    const etag = first.headers.get('etag') ?? '';
    if (first.status !== 200 || renders() !== 1) throw new Error('the first request did not render once');
    // Another brand, with the package already loaded: the render itself.
    const warmBegin = performance.now();
    const warm = await fetch(`${hubOrigin}/api/icons/gitlab.png?size=64`);
    await warm.arrayBuffer();
    const warmMs = performance.now() - warmBegin;

    const bare = Fastify({ logger: false });
    bare.get('/api/icons/github.png', async (_request, reply) =>
      reply
        .header('cache-control', 'no-cache')
        .header('etag', etag)
        .header('x-content-type-options', 'nosniff')
        .type('image/png')
        .send(bytes),
    );
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareOrigin = `http://127.0.0.1:${(bare.server.address() as AddressInfo).port}`;

    await hammer(hubOrigin, iconPath, 500);
    await hammer(bareOrigin, iconPath, 500);
    let hubSeconds = 0;
    let bareSeconds = 0;
    for (let round = 0; round < sizes.rounds; round++) {
      hubSeconds += await hammer(hubOrigin, iconPath, sizes.requests);
      bareSeconds += await hammer(bareOrigin, iconPath, sizes.requests);
    }
    const total = sizes.requests * sizes.rounds;
    const hubRate = total / hubSeconds;
    const bareRate = total / bareSeconds;
    if (renders() !== 2) throw new Error(`cached requests rendered again (${renders()} renders)`);
    console.log(
      `first render (cold: package load, render, disk write)  ${firstMs.toFixed(1)} ms, ${bytes.length} bytes`,
    );
    console.log(`first render of another brand (package loaded)  ${warmMs.toFixed(1)} ms`);
    console.log(`bare Fastify route, same bytes   ${total} requests  ${bareRate.toFixed(0)}/s`);
    console.log(`GET ${iconPath} (cached)  ${total} requests  ${hubRate.toFixed(0)}/s`);
    console.log(`ratio hub/bare: ${(hubRate / bareRate).toFixed(2)}× (target ≥ 0.5×)`);
    await bare.close();
    await hub.close();
  } finally {
    await endSql(sql);
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
