// Spaces own everything in the knowledge store. The owner manages them; agents read the spaces in their scope.
//
// Routes it registers (access in brackets):
//   GET    /api/spaces      [agent or owner]
//   GET    /api/spaces/:id  [agent or owner]
//   POST   /api/spaces      [owner only]
//   PATCH  /api/spaces/:id  [owner only]
//   DELETE /api/spaces/:id  [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, agentCanReachSpace, ownerOnly } from '../../plugins/auth.ts';
import { moveToTrash } from '../trash/move.ts';
import { CreateSpace, DeleteSpaceQuery, Space, SpaceList, SpaceListQuery, UpdateSpace } from './schema.ts';
import { deleteSpace, findSpace, insertSpace, listSpaces, updateSpace } from './store.ts';

const tags = ['spaces'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Space);

  await app.register(
    agentAccess(async (agents) => {
      agents.get(
        '/spaces',
        {
          schema: {
            tags,
            summary: 'List spaces',
            querystring: SpaceListQuery,
            response: { 200: SpaceList, ...errors(401) },
          },
        },
        async (request) => {
          const principal = request.principal;
          const scope = principal?.kind === 'agent' ? principal.spaceId : null;
          const { items, total } = await listSpaces(app.sql, request.query, scope);
          return { items, total, ...request.query };
        },
      );

      agents.get(
        '/spaces/:id',
        {
          schema: {
            tags,
            summary: 'Get a space',
            params: IdParams,
            response: { 200: Space, ...errors(401, 403, 404) },
          },
        },
        async (request) => {
          // A space outside an agent's scope is, for it, no space at all.
          const space = agentCanReachSpace(request.principal, request.params.id)
            ? await findSpace(app.sql, request.params.id)
            : undefined;
          if (!space) throw hubError('SPACE_NOT_FOUND');
          return space;
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/spaces',
        {
          schema: {
            tags,
            summary: 'Create a space',
            body: CreateSpace,
            response: { 201: Space, ...errors(400, 401, 403, 409) },
          },
        },
        async (request, reply) => reply.status(201).send(await insertSpace(app.sql, request.body)),
      );

      owner.patch(
        '/spaces/:id',
        {
          schema: {
            tags,
            summary: 'Rename or describe a space',
            params: IdParams,
            body: UpdateSpace,
            response: { 200: Space, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => {
          const space = await updateSpace(app.sql, request.params.id, request.body);
          if (!space) throw hubError('SPACE_NOT_FOUND');
          return space;
        },
      );

      owner.delete(
        '/spaces/:id',
        {
          schema: {
            tags,
            summary:
              'Delete a space to the trash; one with content only with cascade=true (the content goes along)',
            params: IdParams,
            querystring: DeleteSpaceQuery,
            response: { 204: NoContent, ...errors(401, 403, 404, 409) },
          },
        },
        async (request, reply) => {
          const principal = request.principal;
          if (!principal) throw hubError('UNAUTHORIZED');
          const result = await deleteSpace(app.sql, request.params.id, request.query.cascade, (tx) =>
            moveToTrash(tx, 'space', request.params.id, {
              principal,
              author: { kind: 'owner' },
              audited: true,
            }),
          );
          if (result === 'missing') throw hubError('SPACE_NOT_FOUND');
          if (result === 'has-content') {
            throw hubError('SPACE_NOT_EMPTY');
          }
          return reply.status(204).send(null);
        },
      );
    }),
  );
};

export default {
  name: 'spaces',
  routes: plugin,
} satisfies HubModule;
