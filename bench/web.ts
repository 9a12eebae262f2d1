// Web app benchmark: (1) the gzipped JavaScript the first screen loads (the entry chunk, the dashboard's chunk and
// every chunk they import statically, from Vite's manifest; target ≤ 80 KB), and (2) the time from navigation to
// the dashboard's cards shown, in Chromium against a real hub signed in with a session (target ≤ 1 s), the median
// of BENCH_LOADS loads (default 7) after one warm-up.
//
// Database: as bench/capture.ts (an embedded cluster under the system temp dir, or a scratch database next to
// DATABASE_URL).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { createSql, endSql } from '../lib/db.ts';
import { migrate } from '../lib/migrate.ts';
import { buildWeb } from '../scripts/build-web.ts';
import { chromiumArgs } from '../test/web/browser.ts';
import { scratchDatabase } from './lib/database.ts';

const dist = path.resolve(import.meta.dirname, '..', 'web', 'dist');
const loads = Number(process.env.BENCH_LOADS ?? 7);
const ownerToken = 'bench-owner-token-0123456789abcdef';

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  src?: string;
}

/** The first screen's JavaScript files: the entry, the dashboard, and what they import statically. */
async function firstScreenFiles(): Promise<string[]> {
  const manifest = JSON.parse(await readFile(path.join(dist, '.vite', 'manifest.json'), 'utf8')) as Record<
    string,
    ManifestChunk
  >;
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || files.has(chunk.file)) return;
    files.add(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const [key, chunk] of Object.entries(manifest)) {
    if (chunk.isEntry || key.endsWith('screens/dashboard/index.tsx')) visit(key);
  }
  return [...files].filter((file) => file.endsWith('.js'));
}

async function main() {
  await buildWeb({ ifStale: true, quiet: true });
  let total = 0;
  for (const file of await firstScreenFiles()) {
    const gzipped = gzipSync(await readFile(path.join(dist, file)), { level: 9 }).length;
    total += gzipped;
    console.log(`  ${file.padEnd(40)} ${(gzipped / 1024).toFixed(1)} KB gzipped`);
  }
  const kb = total / 1024;
  console.log(
    `first screen JavaScript: ${kb.toFixed(1)} KB gzipped (target ≤ 80 KB) ${kb <= 80 ? 'OK' : 'OVER'}`,
  );

  const db = await scratchDatabase('web');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-web-data-'));
  const profile = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-web-chromium-'));
  const sql = createSql(db.url, { warn: console.error });
  try {
    await migrate(sql);
    const config = loadConfig({ DATA_DIR: dataDir, OWNER_TOKEN: ownerToken, LOG_LEVEL: 'silent' });
    const app = await buildApp({ config, sql, databaseUrl: db.url, ownerToken, worker: 'off', cron: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      args: chromiumArgs,
      viewport: { width: 1360, height: 860 },
    });
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      await page.goto(origin);
      const signIn = await page.request.post(`${origin}/api/session`, {
        data: { token: ownerToken },
        headers: { origin },
      });
      if (signIn.status() !== 201) throw new Error(`signing in failed: ${signIn.status()}`);
      const times: number[] = [];
      for (let i = 0; i <= loads; i++) {
        const begin = performance.now();
        await page.goto(`${origin}/`, { waitUntil: 'commit' });
        await page.locator('.grid-stack-item .card-body').first().waitFor({ state: 'visible' });
        const ms = performance.now() - begin;
        if (i > 0) times.push(ms);
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)];
      console.log(
        `navigation to dashboard cards shown: median ${median.toFixed(0)} ms, best ${times[0].toFixed(0)} ms, ` +
          `worst ${times[times.length - 1].toFixed(0)} ms over ${times.length} loads (target ≤ 1000 ms) ` +
          `${median <= 1000 ? 'OK' : 'OVER'}`,
      );
    } finally {
      await context.close();
      await app.close();
    }
  } finally {
    await endSql(sql);
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(profile, { recursive: true, force: true });
  }
}

await main();
