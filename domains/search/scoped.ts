// The search a caller may run, in its scope: the route's and the tool protocol's (search tools).
import type { Static } from 'typebox';
import type { Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { readScopeOf } from '../entities/write.ts';
import { tagsOfHits } from '../tags/counts.ts';
import { parseQuery, plainWords, requestedKinds, suggestionQueries } from './query.ts';
import type { SearchKind, SearchQuery, SearchResult } from './schema.ts';
import { closeWords, searchAll } from './store.ts';

/** Kinds that hold the owner's own words: never found by an agent outside its own conversation. */
export const ownersWords: ReadonlySet<SearchKind> = new Set(['messages']);

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
      ...(hit.kind === 'refs' ||
      hit.kind === 'source_docs' ||
      hit.kind === 'apps' ||
      hit.kind === 'feed_items'
        ? { url }
        : {}),
    })),
    total,
    total_is_estimate: counts.some((kind) => kind.estimated),
    facets: {
      ...Object.fromEntries(counts.map((kind) => [kind.kind, kind.count])),
      tags: await tagsOfHits(sql, items),
    },
    suggestions,
    limit,
    offset,
  };
}
