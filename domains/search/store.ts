// Unified full-text search: every requested kind ranked together, in three statements.
//  1. Count: the matches of each kind, counted up to exactThreshold + 1 through its GIN index (no ranking, no
//     vectors read). A kind that reaches the cap counts as the planner's estimate from the column statistics
//     (search_match_estimate); a kind the planner expects to pass plannerTrustedAbove is not counted at all.
//  2. Rank: up to exactThreshold matches in all, every match is ranked (ts_rank over the weighted vector).
//     Above it, a kind with more than tierAbove matches ranks only its candidates: the matches whose heading
//     (weight A: titles, names, tags, a ref's identity) holds a query word, through a GIN index on the heading
//     (at most headingCandidates of them, in physical order),
//     plus the first matches found, as many as the page needs; kinds without a heading (messages, projects, tasks, resources) rank
//     their newest newestCandidates matches. Any heading hit outranks any body-only hit of the same word, so the
//     best results are nearly always among the candidates (the bench measures the overlap).
//     Snippets are computed for the returned page only, from HTML-escaped text, so the only markup is our <mark>.
//  3. Suggest (only when nothing matched): close spellings from search_words by trigram similarity, each checked
//     to find something in the caller's reach before it is offered.
import type { PendingQuery, Row } from 'postgres';
import type { Db } from '../../plugins/db.ts';
import { type ParsedQuery, placeholder } from './query.ts';
import type { SearchKind } from './schema.ts';

/** Up to this many matches in all, every match is ranked and the total is exact. */
export const exactThreshold = 10_000;
/** Above exactThreshold, kinds with more matches than this rank their candidates only. */
const tierAbove = 1_000;
const newestCandidates = 2_000;
const headingCandidates = 2_500;

export interface SearchOptions {
  query: ParsedQuery;
  kinds: readonly SearchKind[];
  /** Rows of this space only. */
  spaceId?: string;
  /** Messages of conversations in this space only (global conversations left out). */
  messageSpaceId?: string;
  limit: number;
  offset: number;
  /** Rank every match however many there are (the bench's reference for the candidate strategy). */
  exact?: boolean;
}

export interface SearchHitRow {
  kind: SearchKind;
  id: string;
  title: string;
  snippet: string;
  rank: number;
  space_id: string | null;
  parent_id: string | null;
  project_id: string | null;
  url: string | null;
}

export interface KindCount {
  kind: SearchKind;
  count: number;
  estimated: boolean;
}

export interface SearchPage {
  items: SearchHitRow[];
  counts: KindCount[];
}

/** Snippets are cut from the first characters of a body: a headline over a huge document costs too much. */
const snippetSource = 50_000;
const headlineOptions =
  'StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=15, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "';

/**
 * Completions of the last word: the shortest words written that start with it, matched by their stems. A prefix
 * past a word's stem ("monitori" of "monitoring", stemmed "monitor") matches no stem as a prefix; a completion does.
 */
const completions = 8;

/** The tsquery of a query: web-search syntax, its last word also matched as a prefix (stemmed or as written). */
function tsquery(sql: Db, query: ParsedQuery) {
  if (query.prefix === null || query.withPlaceholder === null) {
    return sql`websearch_to_tsquery('english', ${query.text})`;
  }
  const slot = `'${placeholder}'`;
  return sql`(
    select case when strpos(parsed, ${slot}) > 0
      then replace(parsed, ${slot}, '(' || (
        to_tsquery('english', ${query.prefix} || ':*') || to_tsquery('simple', ${query.prefix} || ':*') ||
        coalesce((
          select string_agg(to_tsquery('english', w.word)::text, ' | ')::tsquery
          from (select word from search_words where word like ${query.prefix} || '%'
            order by length(word), word limit ${completions}) w
          where numnode(to_tsquery('english', w.word)) > 0
        ), ''::tsquery)
      )::text || ')')::tsquery
      else websearch_to_tsquery('english', ${query.text}) end
    from (select websearch_to_tsquery('english', ${query.withPlaceholder})::text as parsed) parsed)`;
}

type Fragment = PendingQuery<Row[]>;

/** Every lexeme of a tsquery, or-ed: what a heading must hold to make a row a candidate. */
function anyLexeme(sql: Db, query: Fragment) {
  return sql`(select string_agg(m[1], ' | ')::tsquery
    from regexp_matches((${query})::text, '(''(?:[^'']|'''')*''(?::\\*)?)', 'g') m)`;
}

interface KindSql {
  /** `from ... where cond`, in the caller's scope; the row is `p`. */
  matches: (cond: Fragment) => Fragment;
  alias: string;
  heading?: Fragment;
  newest?: string;
}

function kindSql(sql: Db, options: SearchOptions): Record<SearchKind, KindSql> {
  const inSpace = (column: string) =>
    options.spaceId ? sql`and ${sql(column)} = ${options.spaceId}` : sql``;
  return {
    pages: {
      alias: 'p',
      matches: (cond) => sql`from pages p where ${cond} ${inSpace('p.space_id')}`,
      heading: sql`to_tsvector('english', p.title)`,
    },
    projects: {
      alias: 'p',
      matches: (cond) => sql`from projects p where ${cond} ${inSpace('p.space_id')}`,
      newest: 'p.updated_at',
    },
    tasks: {
      alias: 'p',
      matches: (cond) => sql`from tasks p where ${cond} ${inSpace('p.space_id')}`,
      newest: 'p.updated_at',
    },
    resources: {
      alias: 'p',
      matches: (cond) => sql`from resources p where ${cond} ${inSpace('p.space_id')}`,
      newest: 'p.updated_at',
    },
    refs: {
      alias: 'p',
      matches: (cond) => sql`from refs p where ${cond} ${inSpace('p.space_id')}`,
      heading: sql`to_tsvector('english', p.title || ' ' || p.source || ' ' || p.external_id)`,
    },
    source_docs: {
      alias: 'p',
      matches: (cond) => sql`from source_docs p where ${cond} ${inSpace('p.space_id')}`,
      heading: sql`(to_tsvector('english', p.title) || to_tsvector('english', coalesce(p.metadata -> 'tags', '[]'::jsonb)))`,
    },
    messages: {
      alias: 'p',
      matches: (cond) => sql`
        from messages p join conversations c on c.id = p.conversation_id
        where ${cond}
          ${options.messageSpaceId ? sql`and c.space_id = ${options.messageSpaceId}` : sql``}`,
      newest: 'p.created_at',
    },
  };
}

const spaceColumn = (kind: SearchKind) => (kind === 'messages' ? 'c.space_id' : 'p.space_id');

function union(sql: Db, parts: Fragment[]) {
  return parts.reduce((all, part) => sql`${all} union all ${part}`);
}

/** A kind the planner expects to match more than this many rows is not counted: the estimate stands. */
const plannerTrustedAbove = 4 * exactThreshold;

async function countMatches(sql: Db, options: SearchOptions) {
  const kinds = kindSql(sql, options);
  // Messages are scoped through their conversation: their estimate is the unscoped one, and they are counted.
  const scopedMessages = options.messageSpaceId !== undefined;
  const branches = options.kinds.map(
    (kind) => sql`
      (select ${kind}::text as kind, planned, ${
        // A prefix's estimate sums every word it might begin: the whole word's estimate is the better count
        // when the word itself is common.
        options.query.prefix === null
          ? sql`planned`
          : sql`search_match_estimate(websearch_to_tsquery('english', ${options.query.text}), ${kind}::regclass,
              ${kind === 'messages' ? null : (options.spaceId ?? null)}::uuid)`
      } as planned_word, m.*,
        planned <= ${plannerTrustedAbove} or ${kind === 'messages' && scopedMessages} as counted
      from (select search_match_estimate((select query from q), ${kind}::regclass,
        ${kind === 'messages' ? null : (options.spaceId ?? null)}::uuid) as planned) planned
      cross join lateral (
        select count(*)::int as count,
          coalesce((array_agg(id))[1:${options.limit + options.offset}], '{}') as first
        from (select p.id ${kinds[kind].matches(sql`p.search @@ (select query from q)`)}
          limit ${exactThreshold + 1}) capped
        where planned <= ${plannerTrustedAbove} or ${kind === 'messages' && scopedMessages}
      ) m)`,
  );
  const query = tsquery(sql, options.query);
  return sql<
    {
      kind: SearchKind;
      planned: number;
      planned_word: number;
      counted: boolean;
      count: number;
      /** The first matches found, enough for the page: the fill of a kind ranked by candidates. */
      first: string[] | null;
      query: string;
      words: string;
    }[]
  >`
    with q as materialized (select ${query} as query)
    select counted.*, q.query::text as query, coalesce(${anyLexeme(sql, sql`q.query`)}::text, '') as words
    from (${union(sql, branches)}) counted, q`;
}

export async function searchAll(sql: Db, options: SearchOptions): Promise<SearchPage> {
  if (options.kinds.length === 0) return { items: [], counts: [] };
  const counted = (await countMatches(sql, options)).map((row) => {
    const word = Number(row.planned_word);
    const planned = word > exactThreshold ? word : Number(row.planned);
    if (!row.counted) return { ...row, count: planned, estimated: true };
    // Counted up to the cap: past it, the planner's estimate is the count.
    const estimated = row.count > exactThreshold;
    return { ...row, count: estimated ? Math.max(row.count, planned) : row.count, estimated };
  });
  const capped = counted.reduce((sum, row) => sum + Math.min(row.count, exactThreshold + 1), 0);
  const counts: KindCount[] = counted.map(({ kind, count, estimated }) => ({ kind, count, estimated }));
  if (capped === 0) return { items: [], counts };
  const { query, words } = counted[0];
  const candidatesOnly = new Set(
    capped > exactThreshold && !options.exact
      ? counted.filter((row) => row.count > tierAbove).map((row) => row.kind)
      : [],
  );

  const kinds = kindSql(sql, options);
  const branches = counted
    .filter((row) => row.count > 0)
    .map(({ kind, first }) => {
      const of = kinds[kind];
      const hit = sql`${kind}::text as kind, p.id, ${sql(spaceColumn(kind))} as space_id`;
      const rank = sql`ts_rank(p.search, (select query from q)) as rank`;
      const matches = of.matches(sql`p.search @@ (select query from q)`);
      if (!candidatesOnly.has(kind)) return sql`(select ${hit}, ${rank} ${matches})`;
      if (of.heading && words !== '') {
        // The heading index finds the candidates (at most headingCandidates); the match itself is checked on
        // the row, not through a second bitmap over a posting list this long. The fill (the first matches the
        // count found) guarantees a full page when few headings match.
        return sql`(
          (select ${hit}, ${rank} ${of.matches(sql`${of.heading} @@ (select words from q)
            and coalesce(p.search @@ (select query from q), false)`)} limit ${headingCandidates})
          union all
          (select ${hit}, ${rank} ${of.matches(sql`p.id = any(${first ?? []}::uuid[])
            and not coalesce(${of.heading} @@ (select words from q), false)`)}))`;
      }
      return sql`(
        select kind, id, space_id, ts_rank(search, (select query from q)) as rank
        from (select ${hit}, p.search ${matches} order by ${sql(of.newest ?? 'p.created_at')} desc
          limit ${newestCandidates}) newest)`;
    });
  if (branches.length === 0) return { items: [], counts };

  const headline = (column: string) =>
    sql`ts_headline('english', replace(replace(replace(left(${sql(column)}, ${snippetSource}),
      '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), q.query, ${headlineOptions})`;
  const items = await sql<SearchHitRow[]>`
    with q as materialized (select ${query}::tsquery as query, nullif(${words}, '')::tsquery as words),
    ranked as (
      select kind, id, space_id, rank from (${union(sql, branches)}) hits
      order by rank desc, kind, id limit ${options.limit} offset ${options.offset}
    )
    select r.kind, r.id, r.space_id, r.rank,
      case r.kind
        when 'pages' then pg.title
        when 'projects' then pr.name
        when 'tasks' then tk.title
        when 'resources' then rs.name
        when 'refs' then coalesce(nullif(f.title, ''), f.url, f.source || ':' || f.external_id)
        when 'source_docs' then coalesce(nullif(d.title, ''), d.url, '')
        else coalesce(c.title, '')
      end as title,
      case r.kind
        when 'pages' then ${headline('pg.body')}
        when 'projects' then ${headline('pr.research_notes')}
        when 'tasks' then ${headline('tk.notes')}
        when 'resources' then ${headline('rs.notes')}
        when 'refs' then ${headline('f.notes')}
        when 'source_docs' then ${headline('d.content')}
        else ${headline('m.content')}
      end as snippet,
      pg.parent_id, tk.project_id, coalesce(f.url, d.url) as url
    from ranked r cross join q
      left join pages pg on r.kind = 'pages' and pg.id = r.id
      left join projects pr on r.kind = 'projects' and pr.id = r.id
      left join tasks tk on r.kind = 'tasks' and tk.id = r.id
      left join resources rs on r.kind = 'resources' and rs.id = r.id
      left join refs f on r.kind = 'refs' and f.id = r.id
      left join source_docs d on r.kind = 'source_docs' and d.id = r.id
      left join messages m on r.kind = 'messages' and m.id = r.id
      left join conversations c on c.id = m.conversation_id
    order by r.rank desc, r.kind, r.id`;
  const total = counts.reduce((sum, kind) => sum + kind.count, 0);
  if (candidatesOnly.size > 0 && items.length < Math.min(options.limit, total - options.offset)) {
    // Too few candidates for this page (few headings hold the words): rank every match after all.
    return searchAll(sql, { ...options, exact: true });
  }
  return { items: [...items], counts };
}

/**
 * For each word that finds nothing in the caller's reach on its own, up to `per` close words (trigram similarity,
 * closest first) that do. Words that find something, and stop words, are left out.
 */
export async function closeWords(
  sql: Db,
  options: Pick<SearchOptions, 'kinds' | 'spaceId' | 'messageSpaceId'> & { words: string[]; per: number },
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (options.words.length === 0 || options.kinds.length === 0) return found;
  const kinds = kindSql(sql, {
    ...options,
    query: { text: '', withPlaceholder: null, prefix: null },
    limit: 0,
    offset: 0,
  });
  const reaches = (word: Fragment) =>
    options.kinds
      .map(
        (kind) =>
          sql`exists (select 1 ${kinds[kind].matches(sql`p.search @@ websearch_to_tsquery('english', ${word})`)})`,
      )
      .reduce((all, part) => sql`${all} or ${part}`);
  const rows = await sql<{ word: string; close: string[] }[]>`
    select u.word, array(
      select s.word from search_words s
      where s.word % u.word and s.word <> u.word and (${reaches(sql`s.word`)})
      order by s.word <-> u.word, s.word
      limit ${options.per}
    ) as close
    from unnest(${options.words}::text[]) u(word)
    where numnode(websearch_to_tsquery('english', u.word)) > 0 and not (${reaches(sql`u.word`)})`;
  for (const row of rows) found.set(row.word, row.close);
  return found;
}
