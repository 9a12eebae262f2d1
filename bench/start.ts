// Start benchmark: how long `npm start` takes until GET /api/readyz answers 200, on a new data directory (the first
// start: the embedded database initialised, every migration applied, the secret key made) and then again on the same
// directory after a clean stop (a restart: the database started on its files, nothing to migrate). Targets (exit 1
// otherwise): the first start at most 4 s, the median restart at most 1.5 s. The process is a real hub with its
// worker in-process, as an owner runs it; the web app and the bundle are built before the first timing, so no build
// is counted.
//
// Sizes: BENCH_RESTARTS (default 5).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { hubDataDir, startHub } from './lib/hub.ts';

const restarts = Number(process.env.BENCH_RESTARTS ?? 5);
const firstTarget = 4;
const restartTarget = 1.5;

async function timedStart(dataDir: string): Promise<number> {
  const started = performance.now();
  const hub = await startHub({}, { dataDir });
  const seconds = (performance.now() - started) / 1000;
  await hub.stop();
  return seconds;
}

async function main(): Promise<boolean> {
  const root = path.resolve(import.meta.dirname, '..');
  // `npm start` builds the web app and the server's bundle when their sources changed: done here once, so neither
  // timing includes a build.
  for (const script of ['scripts/build-web.ts', 'scripts/build-server.ts']) {
    const build = spawnSync(process.execPath, [script, '--if-stale'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error(`${script} failed`);
  }

  const data = await hubDataDir();
  try {
    const first = await timedStart(data.dataDir);
    const times: number[] = [];
    for (let i = 0; i < restarts; i++) times.push(await timedStart(data.dataDir));
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    const firstOk = first <= firstTarget;
    const restartOk = median <= restartTarget;
    console.log(
      `first start to ready   ${first.toFixed(2)} s  target <= ${firstTarget} s: ${firstOk ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `restart to ready       ${median.toFixed(2)} s  (median of ${restarts}: ${times.map((time) => time.toFixed(2)).join(', ')})` +
        `  target <= ${restartTarget} s: ${restartOk ? 'ok' : 'MISSED'}`,
    );
    return firstOk && restartOk;
  } finally {
    await data.remove();
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
