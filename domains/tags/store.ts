// Tags counted across the kinds that carry them: pages, references, captured documents (their metadata's tags), feed
// items and apps. A tag is one tag whatever its case: counted together, shown in its most used spelling. A tag's
// count is how many rows carry it, each once (a document's metadata may repeat a tag in several spellings).
import type { Db } from '../../plugins/db.ts';
import type { TagCount } from './schema.ts';

/** Which rows to count: a space (apps belong to none and are left out), or named rows of each kind. */
export interface TagScope {
  spaceId?: string;
  ids?: { pages: string[]; refs: string[]; source_docs: string[]; feed_items: string[]; apps: string[] };
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
      select unnest(tags) as tag, 'pages' as kind, id from pages ${where('pages')}
      union all
      select unnest(tags), 'refs', id from refs ${where('refs')}
      union all
      select jsonb_array_elements_text(case jsonb_typeof(metadata -> 'tags') when 'array' then metadata -> 'tags'
                                         else '[]' end), 'source_docs', id
      from source_docs ${where('source_docs')}
      union all
      select unnest(tags), 'feed_items', id from feed_items ${where('feed_items')}
      ${spaceId ? sql`` : sql`union all select unnest(tags), 'apps', id from apps ${where('apps')}`}
    ),
    spelled as (
      select lower(tag) as key, tag, count(*)::int as uses from tagged group by lower(tag), tag
    ),
    carried as (
      select lower(tag) as key, count(distinct (kind, id))::int as count from tagged group by lower(tag)
    )
    select (select s.tag from spelled s where s.key = c.key order by s.uses desc, s.tag limit 1) as tag, c.count,
           count(*) over ()::int as total
    from carried c
    order by c.count desc, c.key
    limit ${page.limit} offset ${page.offset}`;
  // Past the end there is no row to carry the total: counted again, rarely.
  const total =
    rows[0]?.total ?? (page.offset > 0 ? (await tagCounts(sql, scope, { limit: 1, offset: 0 })).total : 0);
  return { items: rows.map(({ tag, count }) => ({ tag, count })), total };
}
