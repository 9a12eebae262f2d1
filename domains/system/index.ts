// Liveness, readiness and version.
//
// Routes it registers (access in brackets):
//   GET    /api/healthz  [public]
//   GET    /api/readyz   [public]
//   GET    /api/version  [public]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { pendingMigrations } from '../../lib/migrate.ts';
import { version } from '../../lib/version.ts';
import { publicAccess } from '../../plugins/auth.ts';
import { countLiveWorkerProcesses } from '../../worker/records.ts';

const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  database: Type.Boolean(),
  migrations: Type.Object({ pending: Type.Array(Type.Integer()) }),
  worker: Type.String(),
  worker_processes: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'WORKER_MODE=separate only: worker processes (`npm run worker`) alive now. Readiness does not wait ' +
        'for one: jobs queue up until a worker starts. Absent when the database cannot be asked.',
    }),
  ),
});

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['system'],
        summary: 'Liveness',
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['system'],
        summary: 'Readiness: database reachable, migrations applied, worker running',
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (request, reply) => {
      const database = await app.sql`select 1`.then(
        () => true,
        () => false,
      );
      const pending = database ? await pendingMigrations(app.sql) : [];
      const worker = app.jobs.state();
      const ready = database && pending.length === 0 && (worker === 'running' || worker === 'separate');
      const processes =
        worker === 'separate' && database
          ? await countLiveWorkerProcesses(app.sql).catch((error: unknown) => {
              request.log.warn({ err: error }, 'counting the worker processes failed');
              return undefined;
            })
          : undefined;
      return reply.status(ready ? 200 : 503).send({
        status: ready ? 'ready' : 'not_ready',
        database,
        migrations: { pending },
        worker,
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

export default publicAccess(plugin);
