// Tags counted across the kinds that carry them: pages, references, captured documents (their metadata's tags) and
// apps. A tag is one tag whatever its case: counted together, shown in its most used spelling.
import type { Db } from '../../plugins/db.ts';
import type { TagCount } from './schema.ts';

/** Which rows to count: a space (apps belong to none and are left out), or named rows of each kind. */
export interface TagScope {
  spaceId?: string;
  ids?: { pages: string[]; refs: string[]; source_docs: string[]; apps: string[] };
}

export async function tagCounts(
  sql: Db,
  scope: TagScope,
  page: { limit: number; offset: number },
): Promise<{ items: TagCount[]; total: number }> {
  const { spaceId, ids } = scope;
  const where = (kind: keyof NonNullable<TagScope['ids']>) => sql`where true
    ${spaceId && kind !== 'apps' ? sql`and space_id = ${spaceId}` : sql``}
    ${ids ? sql`and id = any(${ids[kind]}::uuid[])` : sql``}`;
  const rows = await sql<(TagCount & { total: number })[]>`
    with tagged as (
      select unnest(tags) as tag, 'pages' as kind from pages ${where('pages')}
      union all
      select unnest(tags), 'refs' from refs ${where('refs')}
      union all
      select jsonb_array_elements_text(case jsonb_typeof(metadata -> 'tags') when 'array' then metadata -> 'tags'
                                         else '[]' end), 'source_docs'
      from source_docs ${where('source_docs')}
      ${spaceId ? sql`` : sql`union all select unnest(tags), 'apps' from apps ${where('apps')}`}
    ),
    spelled as (
      select lower(tag) as key, tag, count(*)::int as uses from tagged group by lower(tag), tag
    )
    select (array_agg(tag order by uses desc, tag))[1] as tag, sum(uses)::int as count,
           count(*) over ()::int as total
    from spelled group by key
    order by count desc, key
    limit ${page.limit} offset ${page.offset}`;
  // Past the end there is no row to carry the total: counted again, rarely.
  const total =
    rows[0]?.total ?? (page.offset > 0 ? (await tagCounts(sql, scope, { limit: 1, offset: 0 })).total : 0);
  return { items: rows.map(({ tag, count }) => ({ tag, count })), total };
}
