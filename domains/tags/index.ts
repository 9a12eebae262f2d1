// Tags: what pages, references, captured documents and apps carry (each written through its own domain, listed there
// with ?tag=), counted here.
//
// Routes it registers (access in brackets):
//   GET    /api/tags  [agent or owner]  tags in use with counts; an agent's within its space scope
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { readScope } from '../entities/write.ts';
import { TagList, TagListQuery } from './schema.ts';
import { tagCounts } from './store.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/tags',
    {
      schema: {
        tags: ['tags'],
        summary: 'Tags in use, most used first, with how many rows carry each',
        description:
          'Counted over pages, references, captured documents and apps, regardless of case. With space_id (or for ' +
          'an agent scoped to a space) only that space counts, and apps (which belong to no space) are left out.',
        querystring: TagListQuery,
        response: { 200: TagList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { space_id, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      return { ...(await tagCounts(app.sql, { spaceId }, { limit, offset })), limit, offset };
    },
  );
};

export default {
  name: 'tags',
  routes: agentAccess(plugin),
} satisfies HubModule;
