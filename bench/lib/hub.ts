// A real hub process for the memory benchmarks: `npm start` on a data directory of its own (the embedded
// database included), and the resident set of its Node process (VmRSS of /proc/<pid>/status). Linux only (/proc).
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processAlive, stopEmbeddedPostgres } from '../../lib/embedded-postgres.ts';
import { freePort, until } from '../../test/helpers/process.ts';

export const ownerToken = 'bench-owner-token-0123456789abcdef';
const root = path.resolve(import.meta.dirname, '..', '..');

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Hub {
  origin: string;
  /** The hub's Node process (npm and the shell in between stay small and are not counted). */
  pid: number;
  dataDir: string;
  /** The process's command line, for the report. */
  command(): Promise<string>;
  stop(): Promise<void>;
}

/** The Node process `npm start` runs. */
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
    if (path.basename(words[0]) === 'node' && words.some((word) => /main\.(ts|js)$/.test(word))) return pid;
  }
  return undefined;
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS for process ${pid}`);
  return kb / 1024;
}

/** The median of a few samples a quarter of a second apart: a single sample may catch a collection half done. */
export async function steadyRssMb(pid: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    samples.push(await rssMb(pid));
    await sleep(250);
  }
  return samples.sort((a, b) => a - b)[2];
}

/** Samples the process every 100 ms until stopped; the highest resident set seen. */
export function peakSampler(pid: number): { stop(): Promise<number> } {
  let peak = 0;
  const sample = () =>
    rssMb(pid).then(
      (mb) => {
        peak = Math.max(peak, mb);
      },
      () => undefined,
    );
  void sample();
  const timer = setInterval(sample, 100);
  return {
    async stop() {
      clearInterval(timer);
      await sample();
      return peak;
    },
  };
}

/** A directory for a hub's data, which the embedded database (run as postgres when the bench runs as root) can reach. */
export async function hubDataDir(): Promise<{ dataDir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-'));
  await chmod(dir, 0o711);
  return { dataDir: path.join(dir, 'data'), remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Starts `npm start` and waits until it is ready: with its own data directory, removed when it stops, or on `data`,
 * which stays (a restart starts again on it).
 */
export async function startHub(env: Record<string, string> = {}, data?: { dataDir: string }): Promise<Hub> {
  const own = data ? null : await hubDataDir();
  const dataDir = data?.dataDir ?? (own as { dataDir: string }).dataDir;
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
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const origin = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  async function stop(): Promise<void> {
    const pid = await hubPid(child.pid ?? 0).catch(() => undefined);
    if (pid) process.kill(pid, 'SIGTERM');
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(20_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    // npm may exit before the hub it started: a restart on the same data directory must wait for the hub itself,
    // which releases the directory's lock as it exits.
    if (pid) {
      await until('the hub to exit', async () => (processAlive(pid) ? undefined : true), 20_000).catch(() =>
        process.kill(pid, 'SIGKILL'),
      );
    }
    await stopEmbeddedPostgres({
      dir: path.join(dataDir, 'postgres'),
      runtimeDir: path.join(dataDir, 'runtime'),
      log: () => undefined,
    }).catch(() => undefined);
    await own?.remove();
  }
  try {
    await until(
      'the hub to be ready',
      async () =>
        (await fetch(`${origin}/api/readyz`).catch(() => null))?.status === 200 ? true : undefined,
      60_000,
    );
    const pid = await until('the hub process', () => hubPid(child.pid ?? 0));
    return {
      origin,
      pid,
      dataDir,
      async command() {
        const words = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
        return words.map((word) => path.basename(word)).join(' ');
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export const mb = (value: number) => `${value.toFixed(1)} MB`;
