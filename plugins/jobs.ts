// Background jobs: graphile-worker, in-process by default (WORKER_MODE=separate leaves it to `npm run worker`).
// Jobs are added with worker/enqueue.ts inside the caller's transaction, so a job exists exactly when its row does.

import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import { Logger, parseCronItems, type Runner, run, type TaskList } from 'graphile-worker';
import { closeSafeFetch } from '../lib/safe-fetch.ts';
import { cronTickItem } from '../worker/cron.ts';
import { PermanentJobError } from '../worker/errors.ts';
import { startWorkerLiveness } from '../worker/liveness.ts';

/**
 * graphile-worker's meta carries whole objects (the failed job, the pg client of a connection error, the error with
 * its stack): log what helps and nothing of the driver. An expected failure (PermanentJobError, e.g. a refused
 * capture) is logged without its stack; any other failure keeps it in the message.
 */
function workerMeta(
  message: string,
  meta: Record<string, unknown> | undefined,
): [Record<string, unknown>, string] {
  const out: Record<string, unknown> = {};
  let text = message;
  for (const [key, value] of Object.entries(meta ?? {})) {
    if (value instanceof Error) {
      out[key] = describeError(value);
      if (value instanceof PermanentJobError) text = text.split('\n')[0];
    } else if (key === 'job' && value && typeof value === 'object') {
      const job = value as { id?: unknown; task_identifier?: unknown; attempts?: unknown };
      out.job = { id: job.id, task: job.task_identifier, attempts: job.attempts };
    } else if (key === 'client' || key === 'pool') {
      // The driver's own objects: never dumped.
    } else {
      out[key] = value;
    }
  }
  return [out, text];
}

export function workerLogger(log: FastifyBaseLogger): Logger {
  return new Logger((scope) => (level, rawMessage, rawMeta) => {
    const [meta, message] = workerMeta(rawMessage, rawMeta);
    const target =
      level === 'error'
        ? log.error
        : level === 'warning'
          ? log.warn
          : level === 'debug'
            ? log.debug
            : log.info;
    target.call(log, { worker: scope, ...meta }, message);
  });
}

export interface WorkerOptions {
  connectionString: string;
  taskList: TaskList;
  concurrency: number;
  log: FastifyBaseLogger;
  /** Run the cron registry's minute tick (off in tests that drive recurring work themselves). */
  cron: boolean;
  /** How often the jobs of dead worker processes are looked for (worker/liveness.ts; 30 s unless given). */
  recoverySweepMs?: number;
}

export async function startWorker(options: WorkerOptions): Promise<Runner> {
  const liveness = await startWorkerLiveness(options.connectionString, options.log, options.recoverySweepMs);
  // Jobs a crashed process left locked run again now rather than in graphile-worker's 4 hours. The sweep runs beside
  // the runner's start: a job it frees is found by the runner's next look for jobs. On a database's first start the
  // runner's start is what installs graphile-worker's schema, so a sweep that failed beside it runs once more after.
  const swept = liveness.sweep().then(
    () => true,
    () => false,
  );
  const sweepAgain = async () => {
    if (await swept) return;
    await liveness
      .sweep()
      .catch((error: unknown) => options.log.warn({ err: error }, 'recovery sweep failed'));
  };
  let runner: Runner;
  try {
    runner = await run({
      connectionString: options.connectionString,
      taskList: options.taskList,
      concurrency: options.concurrency,
      noHandleSignals: true,
      pollInterval: 1000,
      parsedCronItems: options.cron ? parseCronItems([cronTickItem]) : [],
      logger: workerLogger(options.log),
      preset: { plugins: [liveness.plugin] },
    });
  } catch (error) {
    await swept;
    await liveness.stop();
    throw error;
  }
  await sweepAgain();
  const stop = runner.stop.bind(runner);
  runner.stop = async (reason) => {
    try {
      await stop(reason);
    } finally {
      await liveness.stop();
    }
  };
  runner.promise.catch(() => liveness.stop());
  return runner;
}

export interface SupervisedWorker {
  /** The runner working now; null while a failed one waits to be replaced. */
  current(): Runner | null;
  running(): boolean;
  stop(): Promise<void>;
}

/**
 * Runs the worker and starts a new runner whenever one fails (graphile-worker's runner gives up when its database
 * goes away: a restart, an outage). Retries back off from 1 s to 30 s; a runner stopped on purpose stays stopped.
 */
export async function superviseWorker(options: WorkerOptions): Promise<SupervisedWorker> {
  let runner: Runner | null = null;
  let stopping = false;
  let retry: NodeJS.Timeout | null = null;
  let failures = 0;

  const watch = (current: Runner) => {
    const startedAt = Date.now();
    current.promise.then(
      () => {
        // Stopped on purpose (here or through the runner itself): it stays stopped.
        if (runner === current) runner = null;
      },
      (error: unknown) => {
        if (stopping || runner !== current) return;
        runner = null;
        if (Date.now() - startedAt > 60_000) failures = 0;
        options.log.warn(
          { err: describeError(error) },
          'the worker stopped with an error; starting it again',
        );
        schedule();
      },
    );
  };

  const schedule = () => {
    const delay = Math.min(30_000, 1000 * 2 ** failures);
    failures++;
    retry = setTimeout(() => {
      retry = null;
      if (stopping) return;
      startWorker(options).then(
        (started) => {
          if (stopping) {
            void started.stop().catch(() => undefined);
            return;
          }
          runner = started;
          watch(started);
          options.log.info('the worker runs again');
        },
        (error: unknown) => {
          options.log.warn({ err: describeError(error) }, 'the worker could not start; trying again');
          schedule();
        },
      );
    }, delay);
  };

  runner = await startWorker(options);
  watch(runner);
  return {
    current: () => runner,
    running: () => runner !== null,
    async stop() {
      stopping = true;
      if (retry) clearTimeout(retry);
      const current = runner;
      runner = null;
      // A runner that already stopped throws.
      if (current) await current.stop().catch(() => undefined);
    },
  };
}

/** An error as a log line wants it: a driver's error carries its client and socket, which are noise. */
export function describeError(error: unknown): { message: string; code?: string } {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { message: error.message, ...(typeof code === 'string' ? { code } : {}) };
}

export type WorkerState = 'running' | 'stopped' | 'separate' | 'off';

declare module 'fastify' {
  interface FastifyInstance {
    jobs: { state(): WorkerState; runner: Runner | null };
  }
}

export interface JobsPluginOptions extends Omit<WorkerOptions, 'log'> {
  /** in-process: run the worker here; separate: another process runs it; off: nobody (tests that only enqueue). */
  mode: 'in-process' | 'separate' | 'off';
}

export default fp<JobsPluginOptions>(
  async (app, options) => {
    let worker: SupervisedWorker | null = null;
    app.decorate('jobs', {
      state: (): WorkerState => {
        if (options.mode !== 'in-process') return options.mode;
        return worker?.running() ? 'running' : 'stopped';
      },
      get runner() {
        return worker?.current() ?? null;
      },
    });
    // Fastify runs onClose hooks last-registered first, so this root-level one runs after every domain's.
    app.addHook('onClose', async () => {
      // Finishes the jobs in flight before the database goes away.
      await worker?.stop();
      // Only now, with no job left to run: a job still fetching would open a guarded pool again after an earlier
      // close, and that pool would outlive the service. Every mode closes them (tests call executors directly).
      await closeSafeFetch();
    });
    if (options.mode !== 'in-process') return;
    app.addHook('onReady', async () => {
      worker = await superviseWorker({ ...options, log: app.log.child({ component: 'worker' }) });
    });
  },
  { name: 'jobs' },
);
