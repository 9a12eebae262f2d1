// Background jobs: graphile-worker, in-process by default (WORKER_MODE=separate leaves it to `npm run worker`).
// Jobs are added with worker/enqueue.ts inside the caller's transaction, so a job exists exactly when its row does.

import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import { Logger, parseCronItems, type Runner, run, type TaskList } from 'graphile-worker';
import { closeSafeFetch } from '../lib/safe-fetch.ts';
import { cronTickItem } from '../worker/cron.ts';
import { startWorkerLiveness } from '../worker/liveness.ts';

export function workerLogger(log: FastifyBaseLogger): Logger {
  return new Logger((scope) => (level, message, meta) => {
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
}

export async function startWorker(options: WorkerOptions): Promise<Runner> {
  const liveness = await startWorkerLiveness(options.connectionString, options.log);
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
    await liveness.stop();
    throw error;
  }
  // Jobs a crashed process left locked run again now rather than in graphile-worker's 4 hours.
  await liveness.sweep().catch((error: unknown) => options.log.warn({ err: error }, 'recovery sweep failed'));
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
    let runner: Runner | null = null;
    let stopped = false;
    app.decorate('jobs', {
      state: (): WorkerState => {
        if (options.mode !== 'in-process') return options.mode;
        return runner && !stopped ? 'running' : 'stopped';
      },
      get runner() {
        return runner;
      },
    });
    // Fastify runs onClose hooks last-registered first, so this root-level one runs after every domain's.
    app.addHook('onClose', async () => {
      // Finishes the jobs in flight before the database goes away (a runner that already stopped throws).
      if (runner && !stopped) await runner.stop();
      stopped = true;
      // Only now, with no job left to run: a job still fetching would open a guarded pool again after an earlier
      // close, and that pool would outlive the service. Every mode closes them (tests call executors directly).
      await closeSafeFetch();
    });
    if (options.mode !== 'in-process') return;
    app.addHook('onReady', async () => {
      runner = await startWorker({ ...options, log: app.log.child({ component: 'worker' }) });
      runner.promise.then(
        () => {
          stopped = true;
        },
        (error: unknown) => {
          stopped = true;
          app.log.error({ err: error }, 'worker stopped with an error');
        },
      );
    });
  },
  { name: 'jobs' },
);
