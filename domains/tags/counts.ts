// Tag counts as other domains use them: search gives the tags of the hits it lists.
import type { Db } from '../../plugins/db.ts';
import type { TagCount } from './schema.ts';
import { tagCounts } from './store.ts';

export const facetTags = 50;

/** The tags of the hits listed, counted (the facet of a search page). */
export async function tagsOfHits(
  sql: Db,
  hits: readonly { kind: string; id: string }[],
): Promise<TagCount[]> {
  const of = (kind: string) => hits.filter((hit) => hit.kind === kind).map((hit) => hit.id);
  const { items } = await tagCounts(
    sql,
    {
      ids: {
        pages: of('pages'),
        refs: of('refs'),
        source_docs: of('source_docs'),
        feed_items: of('feed_items'),
        apps: of('apps'),
      },
    },
    { limit: facetTags, offset: 0 },
  );
  return items;
}
