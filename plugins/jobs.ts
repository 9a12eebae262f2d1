// Background jobs: graphile-worker, in-process by default (WORKER_MODE=separate leaves it to `npm run worker`).
// Jobs are enqueued with SQL inside the caller's transaction, so a job exists exactly when its row does.

import type { FastifyBaseLogger } from 'fastify';
import fp from 'fastify-plugin';
import { Logger, type Runner, run, type TaskList } from 'graphile-worker';
import { recordEnqueued } from '../domains/jobs/store.ts';
import { closeSafeFetch } from '../lib/safe-fetch.ts';
import { startWorkerLiveness } from '../worker/liveness.ts';
import type { Db } from './db.ts';

export interface EnqueueOptions {
  /** Deduplicates: a pending job with the same key is replaced rather than added again. */
  jobKey?: string;
  runAt?: Date;
  maxAttempts?: number;
  queueName?: string;
  priority?: number;
}

export interface EnqueuedJob {
  id: string;
  task_identifier: string;
}

/** Adds a job with the caller's connection or transaction: it commits or rolls back with the caller's work. */
export async function enqueue(
  sql: Db,
  task: string,
  payload: unknown,
  options: EnqueueOptions = {},
): Promise<EnqueuedJob> {
  const [job] = await sql<{ id: string; key: string | null; max_attempts: number }[]>`
    select id::text, key, max_attempts from graphile_worker.add_job(
      identifier => ${task},
      payload => ${sql.json((payload ?? {}) as never)}::json,
      queue_name => ${options.queueName ?? null},
      run_at => ${options.runAt ?? null},
      max_attempts => ${options.maxAttempts ?? null},
      job_key => ${options.jobKey ?? null},
      priority => ${options.priority ?? null}
    )`;
  // The jobs API lists it from now on, in the same transaction (graphile-worker forgets completed jobs).
  await recordEnqueued(sql, { id: job.id, task, payload, job_key: job.key, max_attempts: job.max_attempts });
  return { id: job.id, task_identifier: task };
}

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
      parsedCronItems: [],
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
