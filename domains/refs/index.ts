// Refs: external references, each named by its identity in its source (source + external_id), unique per space.
//
// Routes it registers (access in brackets; get, create, update and delete of an entity come from
// entityRoutes in domains/entities/routes.ts):
//   GET    /api/refs         [agent or owner]
//   GET    /api/refs/:id     [agent or owner]
//   POST   /api/refs         [agent or owner]
//   PATCH  /api/refs/:id     [agent or owner]
//   DELETE /api/refs/:id     [agent or owner]
//   POST   /api/refs/upsert  [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { entityRoutes, readableBy } from '../entities/routes.ts';
import { performWrite, readScope } from '../entities/write.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import { refHandler } from './entity.ts';
import { CreateRef, Ref, RefList, RefListQuery, UpdateRef } from './schema.ts';
import { findRef, listRefs } from './store.ts';
import { refTools } from './tools.ts';

const tags = ['refs'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Ref);

  app.get(
    '/refs',
    {
      schema: {
        tags,
        summary: 'List refs, newest first, filtered by space, source or tag',
        querystring: RefListQuery,
        response: { 200: RefList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { space_id, source, tag, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      return { ...(await listRefs(app.sql, { spaceId, source, tag, limit, offset })), limit, offset };
    },
  );

  entityRoutes(app, {
    entity_type: 'ref',
    path: '/refs',
    tags,
    entity: Type.Ref('Ref'),
    read: readableBy('ref', (id) => findRef(app.sql, id)),
    body: { create: CreateRef, update: UpdateRef },
    summary: {
      get: 'Get a ref',
      create: 'Create a ref (an identity that exists already in its space is a 409; see /refs/upsert)',
      update: 'Change a ref',
      delete: 'Delete a ref (its project links go with it)',
    },
  });

  app.post(
    '/refs/upsert',
    {
      schema: {
        tags,
        summary: 'Create or update a ref by its external identity, atomically (201 created, 200 updated)',
        description:
          'Fields left out keep their value. Identities are unique per space: the same identity in another ' +
          'space is another ref.',
        body: CreateRef,
        response: {
          200: Type.Ref('Ref'),
          201: Type.Ref('Ref'),
          202: PendingReceipt,
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, { entity_type: 'ref', action: 'upsert', payload: request.body }),
  );
};

export default {
  name: 'refs',
  routes: agentAccess(plugin),
  entities: { ref: refHandler },
  tools: refTools,
} satisfies HubModule;
