// Spawns the real service (or the worker) as a child process with an allow-listed environment, and reads
// what it prints. Every child is killed at teardown, and the embedded database of every data directory stopped.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { processAlive, stopEmbeddedPostgres } from '../../lib/embedded-postgres.ts';

export { processAlive };

interface Teardown {
  teardown(fn: () => unknown): void;
}

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Child {
  process: ChildProcess;
  pid: number;
  /** stdout and stderr as printed so far. */
  output(): string;
  stdout(): string;
  stderr(): string;
  exited: Promise<Exit>;
  /** Resolves once the output matches, rejects when the process exits first or the wait runs out. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Polls `check` until it returns a value other than undefined. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A child's whole environment: `env` with PATH and HOME, and, as `npm start` does, Node's compile cache, so the many
 * children of a run load the hub's type-stripped, compiled modules from the cache rather than compiling them again.
 */
export function childEnvironment(env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/',
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'node-compile-cache'),
    ...env,
  };
}

export interface Service {
  child: Child;
  /** http://127.0.0.1:<port> */
  url: string;
  /** From spawning to the first 200 of /api/readyz. */
  readyMs: number;
}

export interface Processes {
  /** A data directory under the system temp dir (as root the database runs as postgres, who must reach it). */
  dataDir(): Promise<string>;
  /** `node <script>` from the repository with only `env` (plus PATH, HOME and NODE_COMPILE_CACHE) in its environment. */
  spawn(script: string, env: Record<string, string>): Child;
  /** `node main.ts` (or `script`: the bundle) on a free port of 127.0.0.1, once /api/readyz answers 200. */
  startService(env: Record<string, string>, timeoutMs?: number, script?: string): Promise<Service>;
}

/** The service's own database (its non-superuser role), as the runtime file of its data directory names it. */
export async function serviceDatabase(dataDir: string): Promise<postgres.Sql> {
  const { databaseUrl } = JSON.parse(await readFile(path.join(dataDir, 'runtime.json'), 'utf8')) as {
    databaseUrl: string;
  };
  return postgres(databaseUrl, { max: 1, onnotice: () => undefined });
}

const dirPrefix = 'ops-hub-process-';

/** Test processes killed before their teardown (a timeout, a broken pipe) leave data directories and databases. */
async function sweepLeftovers(): Promise<void> {
  for (const entry of await readdir(os.tmpdir())) {
    const owner = Number(entry.slice(dirPrefix.length).split('-')[0]);
    if (!entry.startsWith(dirPrefix) || !Number.isInteger(owner) || owner <= 0 || processAlive(owner))
      continue;
    const data = path.join(os.tmpdir(), entry, 'data');
    await stopEmbeddedPostgres({
      dir: path.join(data, 'postgres'),
      runtimeDir: path.join(data, 'runtime'),
      log: () => undefined,
    }).catch(() => undefined);
    await rm(path.join(os.tmpdir(), entry), { recursive: true, force: true });
  }
}

export function processes(t: Teardown): Processes {
  const children = new Set<ChildProcess>();
  const dirs: string[] = [];
  let swept: Promise<void> | null = null;
  // Should this process end without its teardown, the services still stop themselves (and their databases).
  process.once('exit', () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  });
  t.teardown(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    for (const dir of dirs) {
      const data = path.join(dir, 'data');
      await stopEmbeddedPostgres({
        dir: path.join(data, 'postgres'),
        runtimeDir: path.join(data, 'runtime'),
        log: () => undefined,
      });
      await rm(dir, { recursive: true, force: true });
    }
  });

  const processes: Processes = {
    async startService(env, timeoutMs = 90_000, script = 'main.ts') {
      const port = await freePort();
      const started = performance.now();
      const child = processes.spawn(script, { PORT: String(port), HOST: '127.0.0.1', ...env });
      const url = `http://127.0.0.1:${port}`;
      let exited = false;
      child.exited.then(() => {
        exited = true;
      });
      await until(
        'the service to be ready',
        async () => {
          if (exited) throw new Error('the service exited before it was ready');
          const response = await fetch(`${url}/api/readyz`).catch(() => null);
          return response?.status === 200 ? true : undefined;
        },
        timeoutMs,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; it printed:\n${child.output()}`);
      });
      return { child, url, readyMs: Math.round(performance.now() - started) };
    },

    async dataDir() {
      swept ??= sweepLeftovers();
      await swept;
      const dir = await mkdtemp(path.join(os.tmpdir(), `${dirPrefix}${process.pid}-`));
      await chmod(dir, 0o711);
      dirs.push(dir);
      return path.join(dir, 'data');
    },

    spawn(script, env) {
      // The working directory is the data directory's parent, so a developer's .env is never read.
      const cwd = env.DATA_DIR ? path.dirname(env.DATA_DIR) : os.tmpdir();
      const child = spawn(process.execPath, [path.join(repoRoot, script)], {
        cwd,
        env: childEnvironment(env),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      let stdout = '';
      let stderr = '';
      let output = '';
      const listeners = new Set<() => void>();
      const onData = (append: (text: string) => void) => (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        append(text);
        output += text;
        for (const listener of listeners) listener();
      };
      child.stdout.on(
        'data',
        onData((text) => {
          stdout += text;
        }),
      );
      child.stderr.on(
        'data',
        onData((text) => {
          stderr += text;
        }),
      );
      const exited = new Promise<Exit>((resolve) => {
        child.on('close', (code, signal) => resolve({ code, signal }));
      });
      return {
        process: child,
        pid: child.pid ?? 0,
        output: () => output,
        stdout: () => stdout,
        stderr: () => stderr,
        exited,
        waitForOutput(pattern, timeoutMs = 30_000) {
          return new Promise<void>((resolve, reject) => {
            const done = (error?: Error) => {
              listeners.delete(check);
              clearTimeout(timer);
              if (error) reject(error);
              else resolve();
            };
            const check = () => {
              if (pattern.test(output)) done();
            };
            const timer = setTimeout(
              () =>
                done(
                  new Error(`no ${pattern} in the output of ${script} within ${timeoutMs} ms:\n${output}`),
                ),
              timeoutMs,
            );
            listeners.add(check);
            exited.then((exit) =>
              done(
                pattern.test(output)
                  ? undefined
                  : new Error(
                      `${script} exited (${JSON.stringify(exit)}) before printing ${pattern}:\n${output}`,
                    ),
              ),
            );
            check();
          });
        },
      };
    },
  };
  return processes;
}
