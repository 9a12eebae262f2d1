// Crash recovery for graphile-worker. A job locked by a process that died (SIGKILL, power loss) stays locked for
// 4 hours before graphile-worker itself frees it. Here every worker process holds a session advisory lock for as
// long as it lives and registers its pools (graphile-worker locks jobs in a pool's name) before any worker takes a
// job; PostgreSQL drops the advisory lock with the dead process's connection, so a sweep (at start, then
// periodically, in any live process) frees exactly the jobs of pools whose process is gone. Executors are
// idempotent: a job that was half done when its process died simply runs again.
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import postgres, { type ReservedSql } from 'postgres';
import { reconnectBackoff } from '../lib/db.ts';
import {
  forgetWorkerProcess,
  recoverDeadWorkerJobs,
  registerWorkerPool,
  registerWorkerProcess,
} from './records.ts';

declare global {
  namespace GraphileConfig {
    interface Plugins {
      OpsHubWorkerLiveness: true;
    }
  }
}

export interface WorkerLiveness {
  /** The graphile-worker plugin registering each pool before its workers look for jobs. */
  plugin: GraphileConfig.Plugin;
  /** Frees the jobs of dead processes now; returns their ids. */
  sweep(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startWorkerLiveness(
  connectionString: string,
  log: FastifyBaseLogger,
  sweepIntervalMs = 30_000,
): Promise<WorkerLiveness> {
  // A reserved connection holds the advisory lock (it lives exactly as long as that session); the other one runs
  // the sweeps, which need transactions (a reserved connection cannot begin one).
  const client = postgres(connectionString, {
    max: 2,
    connect_timeout: 2,
    backoff: reconnectBackoff,
    onnotice: () => undefined,
    connection: { application_name: 'ops-hub-worker-liveness' },
  });
  const registrations = new Map<string, Promise<void>>();
  let connection: ReservedSql | null = null;
  let lockId = 0;

  // (Re)connects and registers: after a dropped connection our lock is gone and a sweep elsewhere may already have
  // forgotten us, so the process registers anew rather than trusting its old row.
  async function session(): Promise<ReservedSql> {
    if (connection) return connection;
    const reserved = await client.reserve();
    lockId = await registerWorkerProcess(reserved, os.hostname(), process.pid);
    for (const pool of registrations.keys()) await registerWorkerPool(reserved, pool, lockId);
    connection = reserved;
    return reserved;
  }

  async function withSession<T>(work: (sql: ReservedSql) => Promise<T>): Promise<T> {
    const sql = await session();
    try {
      return await work(sql);
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (code.startsWith('CONNECTION') || code.startsWith('08') || code === 'ECONNRESET') {
        connection = null;
        sql.release();
      }
      throw error;
    }
  }

  const sweep = async () => {
    // Our own lock first: a session lost unnoticed would make this process look dead to the others.
    await withSession((sql) => sql`select 1`);
    const freed = await recoverDeadWorkerJobs(client);
    if (freed.length > 0) {
      log.warn({ jobs: freed }, `freed ${freed.length} job(s) locked by a worker process that is gone`);
    }
    return freed;
  };

  await session();
  const timer = setInterval(() => {
    sweep().catch((error: unknown) => log.warn({ err: error }, 'worker liveness sweep failed'));
  }, sweepIntervalMs);
  timer.unref();

  const plugin: GraphileConfig.Plugin = {
    name: 'OpsHubWorkerLiveness',
    version: '1.0.0',
    worker: {
      hooks: {
        // Awaited by graphile-worker before the worker's first job lookup: no job is locked in an unknown name.
        // Every worker of the pool waits for the same registration, not only the first one to ask for it.
        startWorker(_info, event) {
          const pool = event.worker.workerPool.id;
          let registration = registrations.get(pool);
          if (!registration) {
            registration = withSession((sql) => registerWorkerPool(sql, pool, lockId));
            registrations.set(pool, registration);
            registration.catch(() => registrations.delete(pool));
          }
          return registration;
        },
      },
    },
  };

  return {
    plugin,
    sweep,
    async stop() {
      clearInterval(timer);
      const sql = connection;
      connection = null;
      if (sql) {
        await forgetWorkerProcess(sql, lockId).catch((error: unknown) =>
          log.warn({ err: error }, 'could not unregister the worker process'),
        );
        sql.release();
      }
      await client.end({ timeout: 5 });
    },
  };
}
