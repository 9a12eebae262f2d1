// Liveness, readiness and version. Liveness answers 503 from the moment shutdown begins; readiness answers within
// its own short deadline (a frozen database must not hold the probe) and says not ready while the database is away.
// Both are polled constantly, so their request lines are logged at debug level only.
//
// Routes it registers (access in brackets):
//   GET    /api/healthz  [public]
//   GET    /api/readyz   [public]
//   GET    /api/version  [public]
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { pendingMigrations } from '../../lib/migrate.ts';
import { errors } from '../../lib/schemas.ts';
import { version } from '../../lib/version.ts';
import type { HubModule } from '../../module.ts';
import { publicAccess } from '../../plugins/auth.ts';
import { countLiveWorkerProcesses } from '../../worker/records.ts';
import { Readiness } from './schema.ts';

/** How long readiness waits for the database before it says not ready. */
const readinessDeadlineMs = 1500;

/** `work`, or `fallback` once `ms` have passed without an answer. */
async function within<T>(ms: number, work: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What keeps the service from being ready, in words a person at the load balancer can act on. */
function notReadyBecause(
  database: boolean,
  pending: number[],
  worker: string,
  problem: { reason: string; since: Date } | null,
): string[] {
  const reasons: string[] = [];
  if (!database) {
    reasons.push(
      problem
        ? `the database is unavailable since ${problem.since.toISOString()}: ${problem.reason}`
        : `the database did not answer within ${readinessDeadlineMs} ms`,
    );
  }
  if (pending.length > 0) reasons.push(`migrations not applied yet: ${pending.join(', ')}`);
  if (worker === 'stopped') reasons.push('the job worker is not running; it starts again by itself');
  if (worker === 'off') reasons.push('the job worker is off in this process');
  return reasons;
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  let closing = false;
  // The routes' own request lines are raised to warn (quiet); one debug line per poll replaces them.
  app.addHook('onResponse', async (request, reply) => {
    if (request.routeOptions.url === '/api/healthz' || request.routeOptions.url === '/api/readyz') {
      app.log.debug({ url: request.url, statusCode: reply.statusCode }, 'health poll answered');
    }
  });
  // preClose runs while the server still takes connections: during the drain a load balancer sees 503 and stops
  // sending traffic before the listener closes.
  app.addHook('preClose', async () => {
    closing = true;
    if (app.config.server.shutdownDrainMs > 0) await sleep(app.config.server.shutdownDrainMs);
  });

  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: {
        tags: ['system'],
        summary: 'Liveness: 503 once shutdown has begun',
        response: { 200: Type.Object({ status: Type.Literal('ok') }), ...errors(503) },
      },
    },
    async () => {
      if (closing) throw hubError('SHUTTING_DOWN');
      return { status: 'ok' as const };
    },
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        tags: ['system'],
        summary: 'Readiness: database reachable, migrations applied, worker running',
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (request, reply) => {
      const probe = app.database
        ? app.database.check()
        : app.sql`select 1`.then(
            () => true,
            () => false,
          );
      const started = Date.now();
      let database = await within(readinessDeadlineMs, probe, false);
      const left = Math.max(100, readinessDeadlineMs - (Date.now() - started));
      const pending = database
        ? await within(
            left,
            pendingMigrations(app.sql).catch(() => null),
            null,
          )
        : [];
      if (pending === null) database = false;
      const worker = app.jobs.state();
      const ready = database && pending?.length === 0 && (worker === 'running' || worker === 'separate');
      const processes =
        worker === 'separate' && database
          ? await within(
              readinessDeadlineMs,
              countLiveWorkerProcesses(app.sql).catch((error: unknown) => {
                request.log.warn({ err: error }, 'counting the worker processes failed');
                return undefined;
              }),
              undefined,
            )
          : undefined;
      return reply.status(ready ? 200 : 503).send({
        status: ready ? 'ready' : 'not_ready',
        database,
        migrations: { pending: pending ?? [] },
        worker,
        reasons: notReadyBecause(database, pending ?? [], worker, app.database?.problem() ?? null),
        ...(processes === undefined ? {} : { worker_processes: processes }),
      });
    },
  );

  app.get(
    '/version',
    {
      schema: {
        tags: ['system'],
        summary: 'The service version',
        response: { 200: Type.Object({ version: Type.String() }) },
      },
    },
    async () => ({ version }),
  );
};

export default {
  name: 'system',
  routes: publicAccess(plugin),
} satisfies HubModule;
