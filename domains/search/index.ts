// GET /api/search: one ranked search over pages, refs, source documents and messages.
//
// Routes it registers (access in brackets):
//   GET    /api/search  [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { errors } from '../../lib/schemas.ts';
import type { Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { readScopeOf } from '../entities/write.ts';
import { type SearchKind, SearchQuery, SearchResult, searchKinds } from './schema.ts';
import { searchAll } from './store.ts';

/** The search a caller may run, in its scope: the route's and the tool protocol's. */
export async function searchAs(sql: Db, principal: Principal | null, query: Static<typeof SearchQuery>) {
  const { q, space_id, limit, offset } = query;
  const requested = query.kinds ? new Set(query.kinds.split(',') as SearchKind[]) : new Set(searchKinds);
  const spaceId = readScopeOf(principal, space_id);
  // An explicit space leaves messages out; an agent's own scope keeps the messages of its space.
  if (space_id !== undefined) requested.delete('messages');
  const { items, total } = await searchAll(sql, {
    query: q,
    kinds: searchKinds.filter((kind) => requested.has(kind)),
    spaceId,
    messageSpaceId: space_id === undefined ? spaceId : undefined,
    limit,
    offset,
  });
  return {
    items: items.map(({ space_id: hitSpace, ...hit }) => (hitSpace ? { ...hit, space_id: hitSpace } : hit)),
    total,
    limit,
    offset,
  };
}

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
        summary: 'Full-text search across pages, refs, source documents and messages, ranked together',
        description:
          'With space_id, messages are left out. Agents see hits from the spaces in their scope only; a ' +
          'space-scoped agent sees the messages of its own space and no global ones.',
        querystring: SearchQuery,
        response: { 200: SearchResult, ...errors(400, 401, 403) },
      },
    },
    async (request) => searchAs(app.sql, request.principal, request.query),
  );
};

export default plugin;
