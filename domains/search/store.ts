// Unified full-text search: every requested kind ranked together, in three statements (four in rare cases), after
// one that reads the forms of the word being typed (see matchQueries).
//  1. Plan: the match query (web-search syntax, the last word also matched as a prefix), the rank query (the same
//     without its excluded words: ts_rank scores every hit of `storage -raid` alike, as if "raid" were missing from
//     a pair), the rank query's words, and for each kind with more than tierAbove rows the planner's estimate of
//     its matches (column statistics, no rows read).
//  2. Size: up to exactThreshold matches in all, every match is ranked and the total is exact. The estimates decide
//     when they are far from it (under half, or over twice). Near it, the GIN index's counts of matching row ids
//     are asked too (search_index_count: posting lists only, no table rows); they are upper bounds (rows not yet
//     vacuumed count), so a sum within the threshold settles it, and when both say past it each kind counts as the
//     smaller. When they disagree the kinds are ranked in full, capped (3.). Past the threshold, each kind with more
//     than tierAbove matches is broad, and its count an estimate.
//  3. Rank: a kind that is not broad ranks every match it has, reading at most exactThreshold + 1 of them; one
//     that reaches that was misjudged, and is ranked again as broad. In a space, a word with few matches in the
//     whole table has them all read and their space checked, rather than the space's index (entriesPerRow). A
//     broad kind ranks candidates: for each word of the rank query, the rows with the word in their heading (weight
//     A: titles, names, tags, a ref's identity) that rank highest for that word alone, read in rank order from
//     search_headings (sql/0017). Any heading hit outranks any body-only hit of the same word, so for a one-word
//     query these are the exact top hits; for several words the bench measures how much of the exact top they hold.
//     When they fill no page (few headings hold the words), the first matches found are added. Messages have no
//     heading: their newest matches are the candidates.
//  4. The page: titles, link fields and snippets, for the returned hits only. A snippet is ts_headline over the
//     HTML-escaped text around the first place a query word may start, so the only markup is our <mark> and no
//     whole document is parsed for it.
//  Suggestions (only when nothing matched): close spellings from search_words by trigram similarity, each checked
//  to find something in the caller's reach before it is offered.
import type { PendingQuery, Row } from 'postgres';
import type { Db } from '../../plugins/db.ts';
import { type ParsedQuery, placeholder } from './query.ts';
import type { SearchKind } from './schema.ts';

/** Up to this many matches in all, every match is ranked and the total is exact. */
export const exactThreshold = 10_000;
/** Past exactThreshold, kinds with more matches than this are broad (rank candidates); smaller ones rank all. */
const tierAbove = 1_000;
/**
 * In a space, a kind ranked in full reads every match in its table from the full-text index and checks each row's
 * space when the matches are fewer than the space's rows divided by this, instead of letting PostgreSQL combine the
 * full-text index with the space's own. That reads an entry for every row of the space: at a million rows, the
 * 26,000 of one space's pages took 7 ms, where reading all 348 pages with a rare word took 0.8 ms. The planner
 * picks it even so, as it counts a row read as a page read and an index entry as next to nothing. A row costs
 * about as much as 7 entries; 4 leaves room for the planner's guess for a word outside its statistics, often 3
 * times the truth.
 */
const entriesPerRow = 4;
/**
 * Candidates per rank-query word, per broad kind (and the newest matches of a kind without headings): a margin over
 * the page, for queries of several words.
 */
const candidatesPerWord = (needed: number) => Math.max(100, 4 * needed);

export interface SearchOptions {
  query: ParsedQuery;
  kinds: readonly SearchKind[];
  /** Rows of this space only. */
  spaceId?: string;
  /** Messages of this conversation only (an agent's turn). */
  conversationId?: string;
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

/** Completions of the last word (see `matchQueries`). */
const completions = 8;

/** The lexeme of a one-item tsquery's text ('word' or 'word':*). */
function lexeme(sql: Db, item: Fragment) {
  return sql`substring(${item} from '^''(.*)''(?::[*])?$')`;
}

/** Up to this many indexed words start with the last word, it is matched as those words (see `matchQueries`). */
const expansionLimit = 32;

/** The lexeme of a one-item tsquery's text ('word' or 'word':*), still quoted for tsquery input. */
const lexemeOf = (item: string) => /^'(.*)'(?::\*)?$/s.exec(item)?.[1] ?? '';

/** A lexeme as a one-item tsquery's text: quoted, its quotes doubled and its backslashes escaped. */
const quoted = (lexeme: string) => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** The query and the match query of a search, as tsquery texts; both null when its last word is no prefix. */
export interface Queries {
  query: string | null;
  match: string | null;
  /** The stems of the last word's completions. */
  completed: string[];
}

/**
 * The queries of a search. `query`: web-search syntax, the last word also matched as a prefix. The prefix is
 * stemmed, as written (URLs are indexed unstemmed), and completed from the words written: the shortest that start
 * with it, by their stems (a prefix past a word's stem, "monitori" of "monitoring" stemmed "monitor", matches no
 * stem as a prefix; the completion does). A form already matched by the stemmed prefix is left out, so each form
 * is one item: every item costs a pass over the index, and the planner takes the parts of an `or` as independent,
 * so a form repeated would inflate the estimates. The ranking uses it: ts_rank scores a prefix as one word.
 *
 * `match`: when few indexed words (search_lexemes, sql/0018) start with the stemmed prefix or the prefix as written,
 * the prefix forms are replaced by those words. It matches the same rows, but the index reads each word's list of
 * rows directly instead of first gathering every prefixed word's rows into a bitmap: with another word beside it
 * (`snapshot repl`) the match is about three times faster, alone about 40%, and the planner estimates each word from
 * its statistics instead of guessing a prefix's share. The words are read by a range on their C-collated key: `like`
 * or `^@` would need the prefix as a constant to use the index, and here it is computed.
 *
 * Without a prefix both are null: the query is websearch_to_tsquery's. The texts are put together here rather than
 * in SQL, where planning the string work cost more than running it.
 */
export async function matchQueries(sql: Db, query: ParsedQuery): Promise<Queries> {
  if (query.prefix === null || query.withPlaceholder === null)
    return { query: null, match: null, completed: [] };
  const [row] = await sql<
    { parsed: string; whole: string; english: string; simple: string; written: string[]; indexed: string[] }[]
  >`
    select websearch_to_tsquery('english', ${query.withPlaceholder})::text as parsed,
      websearch_to_tsquery('english', ${query.text})::text as whole, english, simple,
      array(select to_tsquery('english', word)::text from search_words
        -- A byte-wise range (the prefix index's operators), not like: kept as a generic plan, it still uses the index.
        where word ~>=~ ${query.prefix} and word ~<~ (${query.prefix} || chr(1114111))
        order by length(word), word limit ${completions}) as written,
      array(
        select distinct s.lexeme from unnest(array[stem, simple_stem]) start cross join lateral (
          select lexeme from search_lexemes where lexeme >= start and lexeme < start || chr(1114111)
          order by lexeme limit ${expansionLimit + 1}) s
        where start <> '' order by s.lexeme) as indexed
    from (select english::text, simple::text, ${lexeme(sql, sql`english::text`)} as stem,
        ${lexeme(sql, sql`simple::text`)} as simple_stem
      from (select to_tsquery('english', ${query.prefix} || ':*') as english,
        to_tsquery('simple', ${query.prefix} || ':*') as simple) forms) stemmed`;
  const slot = `'${placeholder}'`;
  if (!row.parsed.includes(slot)) return { query: row.whole, match: row.whole, completed: [] };
  const stemmed = lexemeOf(row.english);
  const uncovered = (item: string) => stemmed === '' || !lexemeOf(item).startsWith(stemmed);
  const written = row.written.filter((item) => item !== '');
  const rest = [row.simple, ...written].filter(uncovered);
  const prefixed = [...new Set([...(stemmed === '' ? [] : [row.english]), ...rest])];
  // Expanded, the words starting with the prefix as written stand for it too; completions past the stem stay.
  const expanded = row.indexed.length >= 1 && row.indexed.length <= expansionLimit;
  const items = (list: string[]) => `( ${(list.length > 0 ? list : [row.simple]).join(' | ')} )`;
  return {
    query: row.parsed.replace(slot, () => items(prefixed)),
    match: row.parsed.replace(slot, () =>
      items(expanded ? [...new Set([...row.indexed.map(quoted), ...written.filter(uncovered)])] : prefixed),
    ),
    completed: [...new Set(written.map(lexemeOf))],
  };
}

type Fragment = PendingQuery<Row[]>;

interface KindSql {
  /**
   * `from ... where cond`, in the caller's scope; the row is `p`. `readAll`: the caller's space is checked on each
   * row cond finds rather than through the space's index (see entriesPerRow).
   */
  matches: (cond: Fragment, readAll?: boolean) => Fragment;
  /** The caller's space filter on search_headings `h`, for kinds with a heading. */
  headings?: Fragment;
  /** The title, snippet and link fields of a hit, for the page. */
  page: Fragment;
}

function kindSql(
  sql: Db,
  options: Pick<SearchOptions, 'spaceId' | 'conversationId'>,
): Record<SearchKind, KindSql> {
  const inSpace = (column: string) =>
    options.spaceId ? sql`and ${sql(column)} = ${options.spaceId}` : sql``;
  const headings = inSpace('h.space_id');
  // offset 0 keeps the space's condition out of the subquery, so no index can serve it.
  const from = (table: string) => (cond: Fragment, readAll?: boolean) =>
    readAll && options.spaceId
      ? sql`from (select * from ${sql(table)} p where ${cond} offset 0) p where p.space_id = ${options.spaceId}`
      : sql`from ${sql(table)} p where ${cond} ${inSpace('p.space_id')}`;
  const page = (title: Fragment, body: string, links: Fragment) =>
    sql`${title} as title, ${snippet(sql, body)} as snippet, ${links}`;
  const noLinks = sql`null::uuid as parent_id, null::uuid as project_id, null::text as url`;
  return {
    pages: {
      matches: from('pages'),
      headings,
      page: page(sql`p.title`, 'p.body', sql`p.parent_id, null::uuid as project_id, null::text as url`),
    },
    projects: { matches: from('projects'), headings, page: page(sql`p.name`, 'p.research_notes', noLinks) },
    tasks: {
      matches: from('tasks'),
      headings,
      page: page(sql`p.title`, 'p.notes', sql`null::uuid as parent_id, p.project_id, null::text as url`),
    },
    resources: { matches: from('resources'), headings, page: page(sql`p.name`, 'p.notes', noLinks) },
    refs: {
      matches: from('refs'),
      headings,
      page: page(
        sql`coalesce(nullif(p.title, ''), p.url, p.source || ':' || p.external_id)`,
        'p.notes',
        sql`null::uuid as parent_id, null::uuid as project_id, p.url`,
      ),
    },
    source_docs: {
      matches: from('source_docs'),
      headings,
      page: page(
        sql`coalesce(nullif(p.title, ''), p.url, '')`,
        'p.content',
        sql`null::uuid as parent_id, null::uuid as project_id, p.url`,
      ),
    },
    messages: {
      matches: (cond) => sql`
        from messages p join conversations c on c.id = p.conversation_id
        where ${cond}
          ${options.conversationId ? sql`and c.id = ${options.conversationId}` : sql``}`,
      page: page(sql`coalesce(c.title, '')`, 'p.content', noLinks),
    },
    // Apps belong to no space: searched only without a space filter (index.ts leaves them out otherwise).
    apps: {
      matches: (cond) => sql`from apps p where ${cond}`,
      page: page(
        sql`p.name`,
        'p.description',
        sql`null::uuid as parent_id, null::uuid as project_id, p.href as url`,
      ),
    },
    // Feed items have no heading (search_headings): a broad search ranks their newest matches.
    feed_items: {
      matches: from('feed_items'),
      page: page(
        sql`coalesce(nullif(p.title, ''), p.url, '')`,
        'p.summary',
        sql`null::uuid as parent_id, null::uuid as project_id, p.url`,
      ),
    },
  };
}

/** A hit's space: apps have none. */
const spaceColumn = (sql: Db, kind: SearchKind) =>
  kind === 'apps' ? sql`null::uuid` : sql(kind === 'messages' ? 'c.space_id' : 'p.space_id');

function union(sql: Db, parts: Fragment[]) {
  return parts.reduce((all, part) => sql`${all} union all ${part}`);
}

/** A query word is looked for in this many first characters of a body; past them a snippet shows the start. */
const snippetSource = 50_000;
/** ts_headline is given this many characters, starting a little before the first place a query word may start. */
const snippetWindow = 240;
const snippetLead = 80;
const headlineOptions =
  'StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=15, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "';

/** The headline of a body, from the query and q.near (see nearPattern); the text is HTML-escaped first. */
function snippet(sql: Db, column: string) {
  // A case-insensitive search rather than one in lower(): no lower-cased copy of the text is made.
  const first = sql`regexp_instr(left(${sql(column)}, ${snippetSource}), (select near from q), 1, 1, 0, 'i')`;
  const start = sql`greatest(1, coalesce(nullif(${first}, 0), 1) - ${snippetLead})`;
  return sql`ts_headline('english', replace(replace(replace(substr(${sql(column)}, ${start}, ${snippetWindow}),
    '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), (select query from q), ${headlineOptions})`;
}

/**
 * Where a word of the query may start in a text: any of its stems at the start of a word. A stem is mostly a
 * prefix of the words it stands for; a final "i" stands for "y" ("polici" for "policy"), so it is left off.
 */
export function nearPattern(words: readonly string[]): string | null {
  const stems = words
    .filter((word) => /^[\p{L}\p{N}]+$/u.test(word))
    .map((word) => (word.length > 3 && word.endsWith('i') ? word.slice(0, -1) : word));
  return stems.length === 0 ? null : `\\m(${stems.join('|')})`;
}

interface Plan {
  /** The match query (the last word's prefix as the indexed words it starts, when few) and the rank query. */
  query: string;
  rankQuery: string;
  /**
   * The rank query's words (lexemes, prefixes as written), the stems of the last word's completions, and the
   * indexed words its prefix stands for.
   */
  words: string[];
  /** Nothing can match: the query is stop words or operators only. */
  empty: boolean;
  /** The planner's estimate of each kind's matches; 0 for a kind with tierAbove rows or fewer. */
  estimates: Map<SearchKind, number>;
  /** In a space, the kinds that, ranked in full, read every match in their table (see entriesPerRow). */
  readAll: Set<SearchKind>;
}

/** The planner's estimate of a kind's matches of a query, in the caller's space unless `wholeTable`. */
function estimate(sql: Db, options: SearchOptions, query: Fragment, kind: SearchKind, wholeTable = false) {
  const space = wholeTable || kind === 'messages' || kind === 'apps' ? null : (options.spaceId ?? null);
  return sql`search_match_estimate(${query}, ${kind}::regclass, ${space}::uuid)`;
}

/**
 * Whether a kind ranked in full in a space reads every match in its table rather than the space's index (see
 * entriesPerRow), from the planner's estimates of the matches in the table and in the space and the table's rows
 * (pg_class.reltuples: -1 for a table never analyzed, whose size is unknown). The planner takes a word and a space as
 * independent, so the share of the word's matches it puts in the space is its estimate of the space's share of the
 * table. A table of tierAbove rows or fewer has no estimates (0): its matches are few.
 */
export function readsEveryMatch(estimates: { inTable: number; inSpace: number; tableRows: number }): boolean {
  const { inTable, inSpace, tableRows } = estimates;
  if (tableRows < 0) return false;
  if (inTable === 0) return true;
  const spaceRows = (tableRows * inSpace) / inTable;
  return inTable * entriesPerRow <= spaceRows;
}

/** tsquery text quotes a lexeme's quotes and backslashes by doubling them. */
const unquote = (lexeme: string) => lexeme.replace(/''/g, "'").replace(/\\\\/g, '\\');

async function plan(sql: Db, options: SearchOptions): Promise<Plan> {
  const forms = await matchQueries(sql, options.query);
  const source = (text: string | null) =>
    text === null ? sql`websearch_to_tsquery('english', ${options.query.text})` : sql`${text}::tsquery`;
  const estimates = (wholeTable: boolean) =>
    options.kinds
      .map(
        (kind) => sql`case when (select reltuples from pg_class where oid = ${kind}::regclass) > ${tierAbove}
          then ${estimate(sql, options, sql`q.match`, kind, wholeTable)} else 0 end`,
      )
      .reduce((all, part) => sql`${all}, ${part}`);
  const [row] = await sql<
    {
      query: string;
      rank_query: string;
      words: string[];
      nodes: number;
      estimates: number[];
      table_estimates: number[] | null;
      tables: number[] | null;
    }[]
  >`
    with q as materialized (select ${source(forms.query)} as query, ${source(forms.match)} as match)
    select q.match::text as query, r.rank_query, numnode(q.query) as nodes,
      array(select distinct m[1] from regexp_matches(r.rank_query || ' ' || q.match::text,
        '''((?:[^'']|'''')*)''', 'g') m) as words,
      array[${estimates(false)}]::float8[] as estimates,
      ${options.spaceId === undefined ? sql`null` : sql`array[${estimates(true)}]`}::float8[] as table_estimates,
      ${
        options.spaceId === undefined
          ? sql`null`
          : sql`array[${options.kinds
              .map((kind) => sql`(select reltuples from pg_class where oid = ${kind}::regclass)`)
              .reduce((all, part) => sql`${all}, ${part}`)}]`
      }::float8[] as tables
    from q cross join lateral (
      select case when querytree(q.query) in ('', 'T') then q.query::text else querytree(q.query) end as rank_query
    ) r`;
  if (process.env.SEARCH_DEBUG) console.error('PLAN', JSON.stringify(row));
  return {
    query: row.query,
    rankQuery: row.rank_query,
    words: [...new Set([...row.words, ...forms.completed].map(unquote))],
    empty: row.nodes === 0,
    estimates: new Map(options.kinds.map((kind, i) => [kind, row.estimates[i]])),
    readAll: new Set(
      options.kinds.filter((_kind, i) => {
        const inTable = row.table_estimates?.[i];
        const tableRows = row.tables?.[i];
        return (
          inTable !== undefined &&
          tableRows !== undefined &&
          readsEveryMatch({ inTable, inSpace: row.estimates[i], tableRows })
        );
      }),
    ),
  };
}

/** The kinds ranked by candidates, with their (estimated) counts. */
type Broad = Map<SearchKind, number>;

/**
 * Which kinds are broad, with their counts. The planner's estimates decide when they are far from the threshold.
 * Near it, the GIN index's counts must agree: they are upper bounds (they include rows updated or deleted and not
 * yet vacuumed away), so a sum within the threshold means the query is, and a kind both call broad is counted as
 * the smaller of the two. When they disagree the kinds are ranked in full, capped, and a kind that overflows is
 * broad after all. In a space (where the index would count the whole table) a kind whose own estimate is past the
 * threshold is broad, and the others are ranked in full, capped.
 */
async function broadKinds(sql: Db, options: SearchOptions, planned: Plan): Promise<Broad> {
  const estimates = planned.estimates;
  const sum = (sizes: Map<SearchKind, number>) => [...sizes.values()].reduce((all, size) => all + size, 0);
  const estimated = sum(estimates);
  if (options.exact || estimated <= exactThreshold / 2) return new Map();
  const large = [...estimates].filter(([, size]) => size > tierAbove);
  if (estimated >= 2 * exactThreshold) return new Map(large);
  if (estimated <= exactThreshold) return new Map();
  // In a space the index's counts (whole tables) settle nothing. A kind whose own estimate is past the threshold
  // is broad at once: ranked in full it would read its cap of matches, overflow and be ranked again (at a million
  // rows, a common word in one space read 10,001 rows to learn that).
  if (options.spaceId !== undefined) return new Map(large.filter(([, size]) => size > exactThreshold));
  const counted = await indexCounts(
    sql,
    planned,
    large.map(([kind]) => kind),
  );
  if (sum(new Map([...estimates, ...counted])) <= exactThreshold) return new Map();
  return new Map(large.map(([kind, size]) => [kind, Math.min(size, counted.get(kind) ?? size)]));
}

async function indexCounts(sql: Db, planned: Plan, kinds: SearchKind[]): Promise<Map<SearchKind, number>> {
  const rows = await sql<{ kind: SearchKind; count: number }[]>`
    select k as kind, search_index_count(${planned.query}::tsquery, k::regclass)::float8 as count
    from unnest(${kinds}::text[]) k`;
  return new Map(rows.map((row) => [row.kind, row.count]));
}

/**
 * The counts of kinds that overflowed their cap. The prefix query's estimate can be far too low: without a hundred
 * common words in a table's statistics the planner guesses a prefix's share (2% of the rows), so the whole last
 * word's estimate is asked too, and the count is the largest of the two and of what was read.
 */
async function overflowCounts(
  sql: Db,
  options: SearchOptions,
  planned: Plan,
  overflowed: [SearchKind, number][],
): Promise<Broad> {
  const word = sql`websearch_to_tsquery('english', ${options.query.text})`;
  const [row] =
    options.query.prefix === null
      ? [{ estimates: [] as number[] }]
      : await sql<{ estimates: number[] }[]>`select array[${overflowed
          .map(([kind]) => estimate(sql, options, word, kind))
          .reduce((all, part) => sql`${all}, ${part}`)}]::float8[] as estimates`;
  const words = new Map(overflowed.map(([kind], i) => [kind, row.estimates[i] ?? 0]));
  return new Map(
    overflowed.map(([kind, read]) => [
      kind,
      Math.max(read, planned.estimates.get(kind) ?? 0, words.get(kind) ?? 0),
    ]),
  );
}

interface RankedHit {
  kind: SearchKind;
  id: string;
  space_id: string | null;
  rank: number;
}

interface Ranked {
  page: RankedHit[];
  /** Matches of each kind ranked in full (a capped kind at exactThreshold + 1 overflowed). */
  counted: Map<SearchKind, number>;
}

async function rank(
  sql: Db,
  options: SearchOptions,
  planned: Plan,
  broad: Broad,
  fill: boolean,
): Promise<Ranked> {
  const kinds = kindSql(sql, options);
  const needed = options.limit + options.offset;
  const match = sql`p.search @@ (select query from q)`;
  const branches = options.kinds.map((kind) => {
    const of = kinds[kind];
    const hit = sql`${kind}::text as kind, p.id, ${spaceColumn(sql, kind)} as space_id,
      ts_rank(p.search, (select rank from q)) as rank`;
    if (!broad.has(kind)) {
      return sql`(select kind, id, space_id, rank, count(*) over () as matches
        from (select ${hit} ${of.matches(match, planned.readAll.has(kind))}
          ${options.exact ? sql`` : sql`limit ${exactThreshold + 1}`}) m
        order by rank desc, id limit ${needed})`;
    }
    if (!of.headings) {
      // No heading: the newest matches are the candidates, ranked as they are read.
      return sql`(select kind, id, space_id, ts_rank(search, (select rank from q)) as rank, null::bigint as matches
        from (select ${kind}::text as kind, p.id, ${spaceColumn(sql, kind)} as space_id, p.search ${of.matches(match)}
          order by p.created_at desc limit ${candidatesPerWord(needed)}) newest)`;
    }
    const candidates: Fragment[] = [];
    if (planned.words.length > 0) {
      candidates.push(sql`
        select h.id from unnest((select words from q)) w (lexeme) cross join lateral (
          select h.id from search_headings h where h.kind = ${kind} and h.lexeme = w.lexeme ${of.headings}
          order by h.rank desc, h.id limit ${candidatesPerWord(needed)}) h`);
    }
    // The first matches found, when the candidates above filled no page.
    if (fill) candidates.push(sql`select p.id ${of.matches(match)} limit ${needed}`);
    if (candidates.length === 0) return null;
    return sql`(select ${hit}, null::bigint as matches
      ${of.matches(sql`p.id in (${union(sql, candidates)}) and ${match}`)})`;
  });
  const parts = branches.filter((branch) => branch !== null);
  if (parts.length === 0) return { page: [], counted: new Map() };
  const rows = await sql<(RankedHit & { position: number | null; matches: number | null })[]>`
    with q as materialized (
      select ${planned.query}::tsquery as query, ${planned.rankQuery}::tsquery as rank,
        ${planned.words}::text[] as words),
    hits as (${union(sql, parts)})
    select kind, id, space_id, rank, null::float8 as matches,
      row_number() over (order by rank desc, kind, id) as position
    from (select * from hits order by rank desc, kind, id limit ${options.limit} offset ${options.offset}) page
    union all
    select kind, null, null, null, max(matches)::float8, null from hits where matches is not null group by kind`;
  const page = rows
    .filter((row) => row.position !== null)
    .sort((a, b) => Number(a.position) - Number(b.position))
    .map(({ kind, id, space_id, rank }) => ({ kind, id, space_id, rank }));
  const counted = new Map(
    rows.filter((row) => row.position === null).map((row) => [row.kind, Number(row.matches)] as const),
  );
  return { page, counted };
}

/** Titles, link fields and snippets of the page's hits, in the page's order. */
async function pageRows(
  sql: Db,
  options: SearchOptions,
  planned: Plan,
  page: RankedHit[],
): Promise<SearchHitRow[]> {
  if (page.length === 0) return [];
  const kinds = kindSql(sql, options);
  const present = [...new Set(page.map((hit) => hit.kind))];
  const parts = present.map(
    (kind) => sql`(select ${kind}::text as kind, p.id, ${kinds[kind].page}
      ${kinds[kind].matches(sql`p.id = any(${page.filter((hit) => hit.kind === kind).map((hit) => hit.id)}::uuid[])`)})`,
  );
  const rows = await sql<Omit<SearchHitRow, 'rank' | 'space_id'>[]>`
    with q as materialized (select ${planned.query}::tsquery as query, ${nearPattern(planned.words)}::text as near)
    ${union(sql, parts)}`;
  const byKey = new Map(rows.map((row) => [`${row.kind}/${row.id}`, row]));
  return page.flatMap((hit) => {
    const row = byKey.get(`${hit.kind}/${hit.id}`);
    // A row deleted between the statements is left out.
    return row ? [{ ...row, rank: hit.rank, space_id: hit.space_id }] : [];
  });
}

export async function searchAll(sql: Db, options: SearchOptions): Promise<SearchPage> {
  if (options.kinds.length === 0) return { items: [], counts: [] };
  const planned = await plan(sql, options);
  if (planned.empty) {
    return { items: [], counts: options.kinds.map((kind) => ({ kind, count: 0, estimated: false })) };
  }
  let broad = await broadKinds(sql, options, planned);
  if (process.env.SEARCH_DEBUG) console.error('BROAD', [...broad]);
  let ranked = await rank(sql, options, planned, broad, false);
  // A kind ranked in full that reached the cap has more matches than its estimate said: rank it by candidates.
  const overflowed = [...ranked.counted].filter(([, count]) => count > exactThreshold && !options.exact);
  if (overflowed.length > 0) {
    broad = new Map([...broad, ...(await overflowCounts(sql, options, planned, overflowed))]);
    ranked = await rank(sql, options, planned, broad, false);
  }
  const counts: KindCount[] = options.kinds.map((kind) => {
    const estimate = broad.get(kind);
    return estimate === undefined
      ? { kind, count: ranked.counted.get(kind) ?? 0, estimated: false }
      : { kind, count: Math.round(estimate), estimated: true };
  });
  const total = counts.reduce((sum, kind) => sum + kind.count, 0);
  if (broad.size > 0 && ranked.page.length < Math.min(options.limit, total - options.offset)) {
    // Too few candidates for this page (few headings hold the words): add the first matches found.
    ranked = await rank(sql, options, planned, broad, true);
  }
  return { items: await pageRows(sql, options, planned, ranked.page), counts };
}

/**
 * For each word that finds nothing in the caller's reach on its own, up to `per` close words (trigram similarity,
 * closest first) that do. Words that find something, and stop words, are left out. A close word starts with the
 * same letter (a slip in the first letter is rare): the candidates are then read through the prefix index, a few
 * hundred words instead of every word sharing a trigram.
 */
export async function closeWords(
  sql: Db,
  options: Pick<SearchOptions, 'kinds' | 'spaceId' | 'conversationId'> & { words: string[]; per: number },
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (options.words.length === 0 || options.kinds.length === 0) return found;
  const kinds = kindSql(sql, options);
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
      where s.word like left(u.word, 1) || '%' and s.word % u.word and s.word <> u.word
        and (${reaches(sql`s.word`)})
      order by similarity(s.word, u.word) desc, s.word
      limit ${options.per}
    ) as close
    from unnest(${options.words}::text[]) u(word)
    where numnode(websearch_to_tsquery('english', u.word)) > 0 and not (${reaches(sql`u.word`)})`;
  for (const row of rows) found.set(row.word, row.close);
  return found;
}
