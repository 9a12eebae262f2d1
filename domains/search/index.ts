// GET /api/search: one ranked search over pages, projects, tasks, resources, refs, source documents, messages and
// apps.
//
// Routes it registers (access in brackets):
//   GET    /api/search  [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { SearchQuery, SearchResult } from './schema.ts';
import { searchAs } from './scoped.ts';
import { searchTools } from './tools.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/search',
    {
      // `kinds=pages&kinds=refs` arrives as an array: accept it like the comma form.
      preValidation: async (request) => {
        const query = request.query as { kinds?: unknown };
        if (Array.isArray(query.kinds)) query.kinds = query.kinds.join(',');
      },
      schema: {
        tags: ['search'],
        summary:
          'Full-text search across pages, projects, tasks, resources, refs, source documents, messages and apps, ranked together',
        description:
          'Web-search syntax; the last word also matches as a prefix. With space_id, messages and apps are left out. ' +
          'Agents see hits from the spaces in their scope only, and messages only of the conversation their own ' +
          'assistant turn belongs to (none outside a turn). Above 10,000 matches the total and facets are estimates ' +
          '(total_is_estimate) and the broadest kinds rank their most likely candidates. With no hits, ' +
          'suggestions offers the query with close spellings of words already written.',
        querystring: SearchQuery,
        response: { 200: SearchResult, ...errors(400, 401, 403) },
      },
    },
    async (request) => searchAs(app.sql, request.principal, request.query),
  );
};

export default {
  name: 'search',
  routes: agentAccess(plugin),
  tools: searchTools,
} satisfies HubModule;
