// GET /api/search: one ranked search over pages, projects, tasks, resources, refs, source documents, messages and
// apps.
//
// Routes it registers (access in brackets):
//   GET    /api/search  [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { errors } from '../../lib/schemas.ts';
import { agentAccess, type Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { readScopeOf } from '../entities/write.ts';
import { parseQuery, plainWords, requestedKinds, suggestionQueries } from './query.ts';
import { type SearchKind, SearchQuery, SearchResult } from './schema.ts';
import { closeWords, searchAll } from './store.ts';

/** Kinds that hold the owner's own words: never found by an agent outside its own conversation. */
const ownersWords: ReadonlySet<SearchKind> = new Set(['messages']);

/** The search a caller may run, in its scope: the route's and the tool protocol's. */
export async function searchAs(
  sql: Db,
  principal: Principal | null,
  query: Static<typeof SearchQuery>,
): Promise<Static<typeof SearchResult>> {
  const { q, space_id, limit, offset } = query;
  const spaceId = readScopeOf(principal, space_id);
  // Messages are the owner's words: an agent finds only those of the conversation its own turn belongs to (none
  // without a turn). An explicit space leaves them out (they have no space of their own).
  const conversationId = principal?.kind === 'agent' ? principal.conversationId : undefined;
  // Apps belong to no space: a space filter (asked for, or an agent's scope) leaves them out.
  const kinds = requestedKinds(query.kinds).filter(
    (kind) =>
      (!ownersWords.has(kind) || (space_id === undefined && conversationId !== null)) &&
      (kind !== 'apps' || spaceId === undefined),
  );
  const reach = { kinds, spaceId, conversationId: conversationId ?? undefined };
  const { items, counts } = await searchAll(sql, { ...reach, query: parseQuery(q), limit, offset });
  const total = counts.reduce((sum, kind) => sum + kind.count, 0);
  const suggestions =
    total === 0
      ? suggestionQueries(q, await closeWords(sql, { ...reach, words: plainWords(q), per: 3 }))
      : [];
  return {
    items: items.map(({ space_id: hitSpace, parent_id, project_id, url, ...hit }) => ({
      ...hit,
      ...(hitSpace ? { space_id: hitSpace } : {}),
      ...(hit.kind === 'pages' ? { parent_id } : {}),
      ...(hit.kind === 'tasks' && project_id ? { project_id } : {}),
      ...(hit.kind === 'refs' || hit.kind === 'source_docs' || hit.kind === 'apps' ? { url } : {}),
    })),
    total,
    total_is_estimate: counts.some((kind) => kind.estimated),
    facets: Object.fromEntries(counts.map((kind) => [kind.kind, kind.count])),
    suggestions,
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

export default agentAccess(plugin);
