// The trash: deleted pages, spaces, projects and references with everything their delete took along, listed,
// restored whole, or deleted for good; purged after the `trash` retention by the trash.purge task (jobs.ts).
// Owner only.
//
// Routes it registers (access in brackets):
//   GET    /api/trash              [owner only]
//   POST   /api/trash/:id/restore  [owner only]
//   DELETE /api/trash/:id          [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { actorOf } from '../audit/trail.ts';
import { trashCron, trashTasks } from './jobs.ts';
import { deleteForGood, restoreFromTrash } from './move.ts';
import { TrashItem, TrashList, TrashQuery } from './schema.ts';
import { trashSetting } from './setting.ts';
import { listTrash } from './store.ts';

const tags = ['trash'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(TrashItem);

  app.get(
    '/trash',
    {
      schema: {
        tags,
        summary: 'Deleted pages, spaces, projects and references, newest first',
        querystring: TrashQuery,
        response: { 200: TrashList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { kind, limit, offset } = request.query;
      return { ...(await listTrash(app.sql, { kind, limit, offset })), limit, offset };
    },
  );

  app.post(
    '/trash/:id/restore',
    {
      schema: {
        tags,
        summary: 'Restore an item with everything its delete took along',
        description:
          'A page goes back under its parent at its position (the later siblings move down), or last at the top ' +
          'level when its parent is gone. An item whose space is gone is 409 TRASH_SPACE_GONE: restore the space ' +
          'first. Audited.',
        params: IdParams,
        response: { 200: Type.Ref('TrashItem'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = request.principal;
      if (!principal) throw hubError('UNAUTHORIZED');
      return app.sql.begin((tx) => restoreFromTrash(tx, request.params.id, principal));
    },
  );

  app.delete(
    '/trash/:id',
    {
      schema: {
        tags,
        summary: 'Delete an item from the trash for good',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (!principal) throw hubError('UNAUTHORIZED');
      await app.sql.begin((tx) => deleteForGood(tx, request.params.id, actorOf(principal)));
      return reply.status(204).send(null);
    },
  );
};

export default {
  name: 'trash',
  routes: ownerOnly(plugin),
  tasks: trashTasks,
  cron: trashCron,
  settings: [trashSetting],
} satisfies HubModule;
