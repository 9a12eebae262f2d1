// Memory benchmark: a real hub process (`npm start`, with its own data directory and the embedded database), the
// resident set of its Node process (VmRSS of /proc/<pid>/status) idle after start, at its peak under a load
// of cached reads over real HTTP (several GET routes, BENCH_CONCURRENCY at a time for BENCH_LOAD_SECONDS), and again
// BENCH_SETTLE_SECONDS after the load stops. Targets (exit 1 otherwise): idle at most 150 MB, and after the load
// within 20% of idle. Linux only (/proc).
//
// Sizes: BENCH_LOAD_SECONDS (default 15), BENCH_CONCURRENCY (8), BENCH_SETTLE_SECONDS (10); BENCH_ROUTES (comma-separated
// paths) loads only those, to tell which route's memory stays.
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { stopEmbeddedPostgres } from '../lib/embedded-postgres.ts';
import { freePort, until } from '../test/helpers/process.ts';

const loadSeconds = Number(process.env.BENCH_LOAD_SECONDS ?? 15);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 10);
const idleTarget = 150;
const afterLoadMargin = 0.2;
const ownerToken = 'bench-owner-token-0123456789abcdef';
const root = path.resolve(import.meta.dirname, '..');
const routes = process.env.BENCH_ROUTES?.split(',') ?? [
  '/api/theme',
  '/api/spaces',
  '/api/search?q=memory',
  '/api/dashboard/layout',
  '/api/icons/github.png?size=64',
  '/api/settings',
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Node process `npm start` runs (npm and the shell in between stay small and are not counted). */
async function hubPid(npmPid: number): Promise<number | undefined> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The parent is the second field after the command, which sits in parentheses and may hold spaces.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent) parents.set(Number(entry), parent);
  }
  for (const [pid] of parents) {
    let ancestor = parents.get(pid);
    while (ancestor && ancestor !== npmPid) ancestor = parents.get(ancestor);
    if (!ancestor) continue;
    const words = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (path.basename(words[0]) === 'node' && words.some((word) => word.endsWith('main.ts'))) return pid;
  }
  return undefined;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for process ${pid}`);
  return kb / 1024;
}

/** The median of a few samples a quarter of a second apart: a single sample may catch a collection half done. */
async function steadyRssMb(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(await rssMb(pid));
    await sleep(250);
  }
  return samples.sort((a, b) => a - b)[2];
}

async function main(): Promise<boolean> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-memory-'));
  // As root the embedded database runs as postgres, who must reach the data directory.
  await chmod(dir, 0o711);
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: {
      // Node and npm as this process found them; nothing else from this environment.
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: process.env.HOME ?? '/',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      OWNER_TOKEN: ownerToken,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await until(
      'the hub to be ready',
      async () =>
        (await fetch(`${origin}/api/readyz`).catch(() => null))?.status === 200 ? true : undefined,
      60_000,
    );
    const pid = await until('the hub process', () => hubPid(child.pid ?? 0));
    await sleep(settleSeconds * 1000);
    const idle = await steadyRssMb(pid);

    const pool = new Pool(origin, { connections: concurrency });
    const headers = { authorization: `Bearer ${ownerToken}` };
    // One pass first: every route answers 200 and its cache (the icon render, the theme) is filled.
    for (const route of routes) {
      const response = await pool.request({ method: 'GET', path: route, headers });
      await response.body.arrayBuffer();
      if (response.statusCode !== 200) throw new Error(`${route} answered ${response.statusCode}`);
    }
    let peak = await rssMb(pid);
    let requests = 0;
    const deadline = performance.now() + loadSeconds * 1000;
    const sampler = setInterval(() => {
      rssMb(pid).then(
        (mb) => {
          peak = Math.max(peak, mb);
        },
        () => undefined,
      );
    }, 100);
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        for (let i = worker; performance.now() < deadline; i++) {
          const route = routes[i % routes.length];
          const response = await pool.request({ method: 'GET', path: route, headers });
          await response.body.arrayBuffer();
          if (response.statusCode !== 200) throw new Error(`${route} answered ${response.statusCode}`);
          requests++;
        }
      }),
    );
    clearInterval(sampler);
    peak = Math.max(peak, await rssMb(pid));
    await pool.close();
    await sleep(settleSeconds * 1000);
    const after = await steadyRssMb(pid);

    const idleOk = idle <= idleTarget;
    const afterOk = after <= idle * (1 + afterLoadMargin);
    const mb = (value: number) => `${value.toFixed(1)} MB`;
    const command = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
    console.log(`npm start: ${command.map((word) => path.basename(word)).join(' ')} (embedded database)`);
    console.log(
      `idle after start (+${settleSeconds} s)   ${mb(idle)}  target <= ${idleTarget} MB: ${idleOk ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `peak under load            ${mb(peak)}  (${requests} cached GETs over ${routes.length} routes in ${loadSeconds} s, concurrency ${concurrency})`,
    );
    console.log(
      `${settleSeconds} s after the load       ${mb(after)}  target <= ${mb(idle * (1 + afterLoadMargin))} (idle + 20%): ${afterOk ? 'ok' : 'MISSED'}`,
    );
    return idleOk && afterOk;
  } finally {
    const pid = await hubPid(child.pid ?? 0).catch(() => undefined);
    if (pid) process.kill(pid, 'SIGTERM');
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(20_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await stopEmbeddedPostgres({
      dir: path.join(dataDir, 'postgres'),
      runtimeDir: path.join(dataDir, 'runtime'),
      log: () => undefined,
    }).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
