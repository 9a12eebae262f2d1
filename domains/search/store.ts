// Unified full-text search: one statement over the requested kinds, ranked together. Every kind matches its
// generated, weighted tsvector (titles A, bodies B) through its GIN index; snippets are computed for the
// returned page only, from HTML-escaped text so the only markup in a snippet is our <mark>.
import type { Db } from '../../plugins/db.ts';
import type { SearchKind } from './schema.ts';

export interface SearchOptions {
  query: string;
  kinds: readonly SearchKind[];
  /** Pages, refs and source documents of this space only. */
  spaceId?: string;
  /** Messages of conversations in this space only (global conversations left out). */
  messageSpaceId?: string;
  limit: number;
  offset: number;
}

export interface SearchHitRow {
  kind: SearchKind;
  id: string;
  title: string;
  snippet: string;
  rank: number;
  space_id: string | null;
}

/** Snippets are cut from the first characters of a body: a headline over a huge document costs too much. */
const snippetSource = 50_000;
const headlineOptions =
  'StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=15, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "';

function branches(sql: Db, options: SearchOptions) {
  const inSpace = (column: string) =>
    options.spaceId ? sql`and ${sql(column)} = ${options.spaceId}` : sql``;
  const parts = {
    pages: sql`
      select 'pages' as kind, p.id, p.space_id, ts_rank(p.search, q.query) as rank
      from pages p, q where p.search @@ q.query ${inSpace('p.space_id')}`,
    refs: sql`
      select 'refs' as kind, r.id, r.space_id, ts_rank(r.search, q.query) as rank
      from refs r, q where r.search @@ q.query ${inSpace('r.space_id')}`,
    source_docs: sql`
      select 'source_docs' as kind, d.id, d.space_id, ts_rank(d.search, q.query) as rank
      from source_docs d, q where d.search @@ q.query ${inSpace('d.space_id')}`,
    messages: sql`
      select 'messages' as kind, m.id, c.space_id, ts_rank(m.search, q.query) as rank
      from messages m join conversations c on c.id = m.conversation_id, q
      where m.search @@ q.query
        ${options.messageSpaceId ? sql`and c.space_id = ${options.messageSpaceId}` : sql``}`,
  };
  return options.kinds.map((kind) => parts[kind]).reduce((all, part) => sql`${all} union all ${part}`);
}

/** Escapes text for HTML before the headline adds its <mark> tags. */
function escaped(sql: Db, column: string) {
  return sql`replace(replace(replace(left(${sql(column)}, ${snippetSource}), '&', '&amp;'), '<', '&lt;'), '>', '&gt;')`;
}

export async function searchAll(
  sql: Db,
  options: SearchOptions,
): Promise<{ items: SearchHitRow[]; total: number }> {
  if (options.kinds.length === 0) return { items: [], total: 0 };
  const headline = (column: string) =>
    sql`ts_headline('english', ${escaped(sql, column)}, q.query, ${headlineOptions})`;
  const rows = await sql<(SearchHitRow & { total: number })[]>`
    with q as materialized (select websearch_to_tsquery('english', ${options.query}) as query),
    hits as (${branches(sql, options)}),
    counted as (select count(*)::int as total from hits),
    ranked as (
      select kind, id, space_id, rank from hits
      order by rank desc, kind, id limit ${options.limit} offset ${options.offset}
    )
    select counted.total, hit.kind, hit.id, hit.space_id, hit.rank, hit.title, hit.snippet
    from counted left join lateral (
      select r.kind, r.id, r.space_id, r.rank,
        case r.kind
          when 'pages' then p.title
          when 'refs' then coalesce(nullif(f.title, ''), f.url, f.source || ':' || f.external_id)
          when 'source_docs' then coalesce(nullif(d.title, ''), d.url, '')
          else coalesce(c.title, '')
        end as title,
        case r.kind
          when 'pages' then ${headline('p.body')}
          when 'refs' then ${headline('f.notes')}
          when 'source_docs' then ${headline('d.content')}
          else ${headline('m.content')}
        end as snippet
      from ranked r cross join q
        left join pages p on r.kind = 'pages' and p.id = r.id
        left join refs f on r.kind = 'refs' and f.id = r.id
        left join source_docs d on r.kind = 'source_docs' and d.id = r.id
        left join messages m on r.kind = 'messages' and m.id = r.id
        left join conversations c on c.id = m.conversation_id
    ) hit on true
    order by hit.rank desc, hit.kind, hit.id`;
  const total = rows[0]?.total ?? 0;
  const items = rows.filter((row) => row.id !== null).map(({ total: _total, ...hit }) => hit);
  return { items, total };
}
