// The service's own routes' schemas (readiness).
import { Type } from 'typebox';

export const Readiness = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
  database: Type.Boolean(),
  migrations: Type.Object({ pending: Type.Array(Type.Integer()) }),
  worker: Type.String(),
  reasons: Type.Array(Type.String(), {
    description:
      'Why the service is not ready, in words (empty when ready): the database, migrations, the worker',
  }),
  worker_processes: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'WORKER_MODE=separate only: worker processes (`npm run worker`) alive now. Readiness does not wait ' +
        'for one: jobs queue up until a worker starts. Absent when the database cannot be asked.',
    }),
  ),
});
