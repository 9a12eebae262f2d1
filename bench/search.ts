// Search benchmark: seeds 100,000 source documents and 50,000 pages of generated text (plus some refs and
// messages), checks that the searches use the GIN indexes, then runs the same query mix through GET /api/search
// over real HTTP and through the function the route calls (searchAs, straight on postgres.js), and prints
// throughput, p50/p95 latency and their ratio, p50/p95 per query class (narrow, medium, broad, prefix, no-hit),
// and, for the broad queries (over 10,000 matches), how much of the exact top 20 the candidate ranking keeps.
//
// Two sizes. 150k (the default, the regression reference): 100,000 documents, 50,000 pages, 5,000 refs and 5,000
// messages, in a scratch database (bench/lib/database.ts: an embedded cluster, or a scratch database next to
// DATABASE_URL's) thrown away after the run. 1m (`npm run bench -- search 1m`, or BENCH_SIZE=1m): the same mix
// scaled to 1,000,000 rows, in a database built once and kept (an embedded cluster in BENCH_DATA_DIR, by default
// <tmp>/ops-hub-bench-search-1m, or the database ops_hub_bench_search_1m next to DATABASE_URL's): a marker table
// records the seed's version and sizes, written last, so a later run reuses a complete seed and rebuilds an
// incomplete or outdated one. At 1m the targets are checked (exit 1 when one is missed): the mix's p95 through
// HTTP at concurrency 8 at most 150 ms, the broad queries' top-20 overlap with the exact ranking at least 80%.
// Sizes: BENCH_DOCS, BENCH_PAGES, BENCH_REQUESTS, BENCH_CONCURRENCY, BENCH_WARMUP override the defaults.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { Pool } from 'undici';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/index.ts';
import { parseQuery, requestedKinds } from '../domains/search/query.ts';
import type { SearchKind } from '../domains/search/schema.ts';
import { searchAs } from '../domains/search/scoped.ts';
import { type SearchOptions, searchAll } from '../domains/search/store.ts';
import { createSql, endSql } from '../lib/db.ts';
import { migrate } from '../lib/migrate.ts';
import { keptDatabase, scratchDatabase } from './lib/database.ts';

const sizeName = (process.argv[2] ?? process.env.BENCH_SIZE ?? '150k').toLowerCase();
if (sizeName !== '150k' && sizeName !== '1m') throw new Error(`unknown size ${sizeName}: 150k or 1m`);
/** 1m: the 150k mix (160,000 rows in all) scaled to 1,000,000. */
const scale = sizeName === '1m' ? 6.25 : 1;
const sizes = {
  docs: Number(process.env.BENCH_DOCS ?? 100_000 * scale),
  pages: Number(process.env.BENCH_PAGES ?? 50_000 * scale),
  refs: 5_000 * scale,
  messages: 5_000 * scale,
  spaces: 12,
  requests: Number(process.env.BENCH_REQUESTS ?? 2_000),
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 8),
  conversations: Math.round(250 * scale),
  /**
   * Searches per path before the measured rounds: enough for each pooled connection to run every query of the mix a
   * few times. A new PostgreSQL connection maps each shared buffer it reads into its process the first time (a
   * page fault each): at 1m a connection's first pass over the mix took about 65% longer than its later ones, and a
   * hub's connections live for half an hour or more.
   */
  warmup: Number(process.env.BENCH_WARMUP ?? 1_000),
  limit: 20,
  /** Rows per COPY statement. */
  copyRows: scale > 1 ? 50_000 : Number.POSITIVE_INFINITY,
  deferIndexes: scale > 1,
};

// --- deterministic text ------------------------------------------------------------------------------------

/** mulberry32: a small seeded generator, so every run searches the same corpus. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const glue = 'the a of and to in is for on with as by at from that this it be are was or not'.split(' ');
const realWords = [
  ...new Set(
    `
server backup storage network cluster container kubernetes docker proxmox zfs pool snapshot replication disk
drive array raid parity scrub resilver dataset volume mount share samba nfs iscsi router switch firewall vlan
subnet gateway dns dhcp address route bridge bond interface wireguard tunnel vpn certificate proxy nginx traefik
caddy reverse domain monitoring alert metric dashboard grafana prometheus exporter scrape latency throughput
bandwidth packet jitter uptime outage incident postmortem runbook checklist procedure upgrade migration rollback
release version patch kernel module driver firmware bios boot partition filesystem ext4 btrfs journal inode
memory cpu core thread process service daemon systemd timer cron schedule job queue worker task retry failure
error warning log rotation retention archive compression encryption key secret token password vault policy
permission user group role account login session cookie browser client request response header payload json
yaml config setting option parameter variable environment deployment pipeline build test lint format commit
branch merge review issue project milestone deadline estimate priority backlog sprint meeting notes summary
research paper article reference citation book chapter library index search query ranking relevance snippet
garden kitchen recipe travel budget invoice receipt tax insurance health doctor appointment family birthday
holiday weekend morning evening coffee bicycle running hiking camping photography camera lens music playlist
podcast episode movie series reading writing journal idea plan goal habit routine exercise sleep energy
electricity solar battery inverter heating thermostat sensor automation light switchboard doorbell
printer scanner laptop desktop tablet phone charger cable adapter rack shelf ups fan temperature noise power
database postgres index vacuum analyze query planner statement transaction lock deadlock replica standby
failover recovery restore verify checksum integrity corruption benchmark profile optimise cache buffer
api endpoint route handler schema validation migration seed fixture mock stub integration contract
language compiler runtime interpreter typescript javascript python rust golang shell script terminal editor
photosynthesis astronomy telescope galaxy nebula orbit satellite weather forecast rainfall humidity storm
`
      .split(/\s+/)
      .filter(Boolean),
  ),
];

/** Made-up words for the long tail of the vocabulary, from syllables: real text has tens of thousands of terms. */
function pseudoWord(rank: number): string {
  const onsets = [
    'b',
    'c',
    'd',
    'f',
    'g',
    'k',
    'l',
    'm',
    'n',
    'p',
    'r',
    's',
    't',
    'v',
    'z',
    'br',
    'tr',
    'st',
  ];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
  let n = rank * 7919 + 13;
  let word = '';
  for (let syllable = 0; syllable < 3 + (rank % 2); syllable++) {
    word += onsets[n % onsets.length] + vowels[Math.floor(n / onsets.length) % vowels.length];
    n = Math.floor(n / (onsets.length * vowels.length)) + rank * (syllable + 3);
  }
  return `${word}${'nrlx'[rank % 4]}`;
}

/**
 * 20,000 terms in Zipf order: every 25th rank (from rank 2) is a real word, so real words span common to rare
 * (server at rank 2, backup 27, kubernetes 152, firewall 727, postgres 6152, humidity 7552).
 */
const vocabulary = Array.from({ length: 20_000 }, (_, rank) => {
  const real = (rank - 2) / 25;
  return Number.isInteger(real) && real < realWords.length ? realWords[real] : pseudoWord(rank);
});

/** Zipf pick (exponent 1): term frequency falls with its rank, as in natural text. */
function picker(random: () => number) {
  const cumulative: number[] = [];
  let sum = 0;
  for (let rank = 0; rank < vocabulary.length; rank++) {
    sum += 1 / (rank + 1);
    cumulative.push(sum);
  }
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return vocabulary[low];
  };
}

function textMaker(seed: number) {
  const random = generator(seed);
  const word = picker(random);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const sentence = () => {
    const words: string[] = [];
    const length = between(6, 18);
    for (let i = 0; i < length; i++) words.push(random() < 0.45 ? glue[between(0, glue.length - 1)] : word());
    const text = words.join(' ');
    return `${text[0].toUpperCase()}${text.slice(1)}.`;
  };
  return {
    random,
    between,
    title: () => {
      const words = Array.from({ length: between(2, 7) }, word).join(' ');
      return `${words[0].toUpperCase()}${words.slice(1)}`;
    },
    body: (minWords: number, maxWords: number) => {
      const target = between(minWords, maxWords);
      const paragraphs: string[] = [];
      let count = 0;
      while (count < target) {
        const paragraph: string[] = [];
        for (let i = between(2, 6); i > 0 && count < target; i--) {
          const text = sentence();
          paragraph.push(text);
          count += text.split(' ').length;
        }
        paragraphs.push(paragraph.join(' '));
      }
      return paragraphs.join('\n\n');
    },
  };
}

/** A COPY text-format field. */
function field(value: string | null): string {
  if (value === null) return '\\N';
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

// --- database ------------------------------------------------------------------------------------------------

/** Up to `count` more lines of `lines`; `state.done` once they ran out. */
function* take(lines: Iterator<string>, count: number, state: { done: boolean }) {
  for (let i = 0; i < count; i++) {
    const next = lines.next();
    if (next.done) {
      state.done = true;
      return;
    }
    yield next.value;
  }
}

/**
 * COPYs `lines`, in statements of at most sizes.copyRows rows: the search side tables are kept by statement-level
 * triggers, whose transition tables (every row of the statement) stay bounded that way.
 */
async function copy(into: () => postgres.PendingQuery<postgres.Row[]>, lines: Iterable<string>) {
  const iterator = lines[Symbol.iterator]();
  const state = { done: false };
  while (!state.done)
    await pipeline(Readable.from(take(iterator, sizes.copyRows, state)), await into().writable());
}

/** The tables the seed fills whose plain (not unique) indexes are built after the load at 1m. */
const seededTables = ['source_docs', 'pages', 'refs', 'messages', 'search_headings'];

async function seed(url: string): Promise<string[]> {
  const sql = postgres(url, { max: 4, onnotice: () => undefined });
  try {
    // Building an index once over all rows is faster than growing it row by row (a GIN index's pending list is
    // merged into it every few MB); the unique indexes stay, the triggers' conflict checks need them.
    const deferred = sizes.deferIndexes
      ? await sql<{ name: string; definition: string }[]>`
          select i.relname as name, pg_get_indexdef(x.indexrelid) as definition
          from pg_index x join pg_class i on i.oid = x.indexrelid
          where x.indrelid = any(${seededTables}::regclass[]) and not x.indisunique
          order by i.relname`
      : [];
    for (const index of deferred) await sql.unsafe(`drop index ${index.name}`);
    const spaceIds: string[] = [];
    for (let i = 0; i < sizes.spaces; i++) {
      const [row] = await sql<
        { id: string }[]
      >`insert into spaces (name) values (${`Space ${i + 1}`}) returning id`;
      spaceIds.push(row.id);
    }
    const started = Date.now();
    const day = 86_400_000;
    const base = Date.UTC(2024, 0, 1);

    function* docs() {
      const text = textMaker(1);
      for (let i = 0; i < sizes.docs; i++) {
        const space = spaceIds[i % spaceIds.length];
        const url =
          i % 10 === 9
            ? null
            : `https://example.org/${i.toString(36)}/${text.title().toLowerCase().replace(/ /g, '-')}`;
        const origin = url === null ? 'upload' : i % 7 === 0 ? 'webhook' : 'url';
        const captured = new Date(base + Math.floor(text.random() * 700 * day)).toISOString();
        yield `${[space, field(url), field(text.title()), field(text.body(60, 420)), 'text/html', origin, captured].join('\t')}\n`;
      }
    }
    function* pages() {
      const text = textMaker(2);
      const nextPosition = new Map<string, number>();
      for (let i = 0; i < sizes.pages; i++) {
        const space = spaceIds[i % spaceIds.length];
        const position = nextPosition.get(space) ?? 0;
        nextPosition.set(space, position + 1);
        yield `${[space, position, field(text.title()), field(text.body(30, 260))].join('\t')}\n`;
      }
    }
    function* refs() {
      const text = textMaker(3);
      for (let i = 0; i < sizes.refs; i++) {
        yield `${[spaceIds[i % spaceIds.length], 'web', `ref-${i}`, `https://refs.example.net/${i}`, field(text.title()), field(text.body(0, 60))].join('\t')}\n`;
      }
    }
    // Two connections at a time: the machine has few cores, and each COPY keeps one busy.
    await Promise.all([
      copy(
        () =>
          sql`copy source_docs (space_id, url, title, content, content_type, origin, captured_at) from stdin`,
        docs(),
      ),
      copy(() => sql`copy pages (space_id, position, title, body) from stdin`, pages()),
    ]);
    await copy(() => sql`copy refs (space_id, source, external_id, url, title, notes) from stdin`, refs());
    // A quarter of the conversations are global (no space).
    const conversations = await sql<{ id: string }[]>`
      insert into conversations ${sql(
        Array.from({ length: sizes.conversations }, (_, i) => ({
          space_id: i % 4 === 0 ? null : spaceIds[i % spaceIds.length],
          title: `Conversation ${i + 1}`,
        })),
      )} returning id`;
    const text = textMaker(4);
    const messages = Array.from({ length: sizes.messages }, (_, i) => ({
      conversation_id: conversations[i % conversations.length].id,
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: text.body(10, 120),
    }));
    for (let i = 0; i < messages.length; i += 1000)
      await sql`insert into messages ${sql(messages.slice(i, i + 1000))}`;
    const loaded = Date.now();
    for (const index of deferred) await sql.unsafe(index.definition);
    if (deferred.length > 0)
      console.log(
        `# ${deferred.length} indexes built after the load in ${((Date.now() - loaded) / 1000).toFixed(1)} s`,
      );
    const seeded = Date.now() - started;
    // Every table the load wrote, the search side tables included: otherwise autovacuum gets to them while the
    // latencies are measured.
    await sql`vacuum (analyze) source_docs, pages, refs, messages, conversations, search_headings, search_lexemes,
      search_words`;
    console.log(
      `# seeded ${sizes.docs} source docs, ${sizes.pages} pages, ${sizes.refs} refs, ${sizes.messages} messages ` +
        `in ${(seeded / 1000).toFixed(1)} s (+ vacuum analyze ${((Date.now() - started - seeded) / 1000).toFixed(1)} s)`,
    );
    return spaceIds;
  } finally {
    await sql.end();
  }
}

// --- the query mix -------------------------------------------------------------------------------------------

type QueryClass = 'narrow' | 'medium' | 'broad' | 'prefix' | 'no-hit';
const classes: QueryClass[] = ['narrow', 'medium', 'broad', 'prefix', 'no-hit'];

interface Case {
  q: string;
  class: QueryClass;
  kinds?: SearchKind[];
  spaceIndex?: number;
}

/** A mix of common, middling and rare terms, phrases, web-search operators, filters, prefixes and typos. */
const cases: Case[] = [
  { q: 'telescope galaxy', class: 'narrow' },
  { q: 'humidity', class: 'narrow' },
  { q: '"snapshot replication"', class: 'narrow' },
  { q: 'nebula', class: 'narrow', spaceIndex: 7 },
  { q: '(unbalanced "quote', class: 'narrow' },
  { q: 'thermostat', class: 'narrow' },
  { q: 'postgres vacuum', class: 'narrow', kinds: ['pages'] },
  { q: 'retention policy', class: 'narrow', kinds: ['refs', 'messages'] },
  { q: 'grafana "dashboard"', class: 'narrow' },
  { q: 'kubernetes cluster', class: 'medium' },
  { q: 'certificate', class: 'medium', kinds: ['source_docs'] },
  { q: 'firewall or wireguard', class: 'medium' },
  { q: 'running', class: 'medium' },
  { q: 'container', class: 'medium', kinds: ['pages'] },
  { q: 'storage', class: 'medium', spaceIndex: 3 },
  { q: 'backup', class: 'broad' },
  { q: 'storage -raid', class: 'broad' },
  { q: 'network', class: 'broad' },
  { q: 'server', class: 'broad' },
  { q: 'cluster or docker', class: 'broad' },
  { q: 'kuber', class: 'prefix' },
  { q: 'back', class: 'prefix' },
  { q: 'therm', class: 'prefix' },
  { q: 'snapshot repl', class: 'prefix' },
  { q: 'st', class: 'prefix' },
  { q: 'prox', class: 'prefix' },
  { q: 'proxmax', class: 'no-hit' },
  { q: 'kubernetis', class: 'no-hit' },
  { q: 'zzyzx qwv', class: 'no-hit' },
];

function queryFor(item: Case, spaceIds: string[]) {
  return {
    q: item.q,
    limit: sizes.limit,
    offset: 0,
    ...(item.kinds ? { kinds: item.kinds.join(',') } : {}),
    ...(item.spaceIndex === undefined ? {} : { space_id: spaceIds[item.spaceIndex] }),
  };
}

function optionsFor(item: Case, spaceIds: string[]): SearchOptions {
  const spaceId = item.spaceIndex === undefined ? undefined : spaceIds[item.spaceIndex];
  const kinds = requestedKinds(item.kinds?.join(',')).filter((kind) => !(spaceId && kind === 'messages'));
  return { query: parseQuery(item.q), kinds, spaceId, limit: sizes.limit, offset: 0 };
}

function pathFor(item: Case, spaceIds: string[]): string {
  const params = new URLSearchParams({ q: item.q, limit: String(sizes.limit) });
  if (item.kinds) params.set('kinds', item.kinds.join(','));
  if (item.spaceIndex !== undefined) params.set('space_id', spaceIds[item.spaceIndex]);
  return `/api/search?${params}`;
}

// --- measuring -----------------------------------------------------------------------------------------------

interface Figures {
  label: string;
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p95: number;
}

/** Latencies (ms) and busy time (s) of one path, gathered over several rounds. */
interface Tally {
  latencies: number[];
  seconds: number;
}

/** Runs `count` calls with at most `concurrency` in flight, adding their latencies and the wall time to `tally`. */
async function load(tally: Tally, count: number, concurrency: number, run: (i: number) => Promise<void>) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const begin = performance.now();
        await run(i);
        tally.latencies.push(performance.now() - begin);
      }
    }),
  );
  tally.seconds += (performance.now() - started) / 1000;
}

function figures(label: string, tally: Tally): Figures {
  const sorted = [...tally.latencies].sort((x, y) => x - y);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
  return {
    label,
    requests: sorted.length,
    seconds: tally.seconds,
    perSecond: sorted.length / tally.seconds,
    p50: at(0.5),
    p95: at(0.95),
  };
}

function row(figures: Figures): string {
  return [
    figures.label.padEnd(22),
    String(figures.requests).padStart(6),
    `${figures.seconds.toFixed(2)} s`.padStart(9),
    `${figures.perSecond.toFixed(1)} req/s`.padStart(13),
    `p50 ${figures.p50.toFixed(2)} ms`.padStart(14),
    `p95 ${figures.p95.toFixed(2)} ms`.padStart(14),
  ].join('  ');
}

/** EXPLAIN ANALYZE of the ranking statement searchAll sends, captured through the driver's debug hook. */
async function explain(url: string, options: SearchOptions): Promise<string[]> {
  let captured: { query: string; parameters: unknown[] } | null = null;
  const sql = postgres(url, {
    max: 1,
    onnotice: () => undefined,
    debug: (_connection, query, parameters) => {
      if (query.includes('hits as (')) captured = { query, parameters: parameters as unknown[] };
    },
  });
  try {
    await searchAll(sql, options);
    const statement = captured as { query: string; parameters: unknown[] } | null;
    if (!statement) throw new Error('no statement captured');
    const plan = await sql.unsafe(
      `explain (analyze, costs off) ${statement.query}`,
      statement.parameters as never[],
    );
    return plan.map((line) => String(line['QUERY PLAN']));
  } finally {
    await sql.end();
  }
}

/** The 1m size's targets. */
const targets = { p95Ms: 150, broadOverlap: 0.8 };

// --- the kept 1m database ------------------------------------------------------------------------------------

/** Changed whenever the generated corpus changes: a kept database seeded by another version is built again. */
const seedVersion = 1;
const seedSizes = `${sizes.docs} docs, ${sizes.pages} pages, ${sizes.refs} refs, ${sizes.messages} messages`;

/** When the kept database holds a complete seed of this version and these sizes: how long seeding took. */
async function completeSeed(sql: postgres.Sql): Promise<{ seconds: number; seeded_at: Date } | null> {
  const [table] = await sql<{ present: boolean }[]>`select to_regclass('bench_seed') is not null as present`;
  if (!table.present) return null;
  const [row] = await sql<{ seconds: number; seeded_at: Date }[]>`
    select seconds, seeded_at from bench_seed where version = ${seedVersion} and sizes = ${seedSizes}`;
  return row ?? null;
}

/** Written last, so a seed cut short leaves no marker and the next run starts over. */
async function markSeed(sql: postgres.Sql, seconds: number) {
  await sql`create table bench_seed (version int not null, sizes text not null, seconds float8 not null,
    seeded_at timestamptz not null default now())`;
  await sql`insert into bench_seed (version, sizes, seconds) values (${seedVersion}, ${seedSizes}, ${seconds})`;
}

async function database() {
  if (scale === 1) return { db: await scratchDatabase('search'), seeded: null };
  const dir = process.env.BENCH_DATA_DIR ?? path.join(os.tmpdir(), 'ops-hub-bench-search-1m');
  const db = await keptDatabase('search_1m', dir);
  const check = postgres(db.url, { max: 1, onnotice: () => undefined });
  const seeded = await completeSeed(check).finally(() => check.end());
  if (seeded) {
    console.log(
      `# reusing the ${seedSizes} seeded on ${seeded.seeded_at.toISOString()} in ${seeded.seconds.toFixed(0)} s ` +
        `(${process.env.DATABASE_URL ? 'database ops_hub_bench_search_1m' : dir})`,
    );
  } else {
    console.log(
      `# seeding ${seedSizes} (${process.env.DATABASE_URL ? 'database ops_hub_bench_search_1m' : dir})`,
    );
    await db.reset();
  }
  return { db, seeded };
}

async function main(): Promise<boolean> {
  const loadBefore = os.loadavg()[0];
  const { db, seeded } = await database();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-data-'));
  let closeApp: (() => Promise<void>) | null = null;
  try {
    const setup = postgres(db.url, { max: 1, onnotice: () => undefined });
    await migrate(setup);
    const started = Date.now();
    const spaceIds = seeded
      ? (await setup<{ id: string }[]>`select id from spaces order by substring(name from '\d+')::int`).map(
          (space) => space.id,
        )
      : await seed(db.url);
    if (!seeded && scale > 1) await markSeed(setup, (Date.now() - started) / 1000);
    const [size] = await setup<
      { size: string }[]
    >`select pg_size_pretty(pg_database_size(current_database())) as size`;
    console.log(`# database size ${size.size}`);
    await setup.end();
    if (!seeded && db.adminUrl) {
      // The load's pages written out now, rather than by a checkpoint while the latencies are measured.
      const admin = postgres(db.adminUrl, { max: 1, onnotice: () => undefined });
      await admin`checkpoint`;
      await admin.end();
    }

    console.log('# plans (GIN index use):');
    for (const item of [cases[1], cases[15]]) {
      const plan = await explain(db.url, optionsFor(item, spaceIds));
      const indexes = [...new Set(plan.flatMap((line) => line.match(/\w+_(search|rank)_idx/g) ?? []))].sort();
      const seqScans = plan.filter((line) => /Seq Scan on (pages|source_docs|refs|messages)\b/.test(line));
      const time = plan.find((line) => line.startsWith('Execution Time')) ?? '';
      console.log(
        `#   q=${JSON.stringify(item.q)}: GIN ${indexes.join(', ') || 'none'}; ` +
          `seq scans on searched tables: ${seqScans.length}; ${time}`,
      );
      if (process.env.BENCH_PLANS) console.log(plan.map((line) => `#     ${line}`).join('\n'));
    }

    const ownerToken = randomBytes(24).toString('hex');
    const config = loadConfig({ DATA_DIR: dataDir, OWNER_TOKEN: ownerToken, LOG_LEVEL: 'silent' });
    const sql = createSql(db.url, { warn: () => undefined });
    const app = await buildApp({ config, sql, databaseUrl: db.url, ownerToken, worker: 'off' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    closeApp = async () => {
      await app.close();
      await endSql(sql);
    };
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const client = new Pool(`http://127.0.0.1:${port}`, { connections: sizes.concurrency });
    const headers = { authorization: `Bearer ${ownerToken}` };
    const paths = cases.map((item) => pathFor(item, spaceIds));
    const queries = cases.map((item) => queryFor(item, spaceIds));
    const options = cases.map((item) => optionsFor(item, spaceIds));
    const byClass = new Map(classes.map((name) => [name, { latencies: [], seconds: 0 } as Tally]));

    const http = async (i: number) => {
      const begin = performance.now();
      const response = await client.request({ method: 'GET', path: paths[i % paths.length], headers });
      const body = (await response.body.json()) as { items: unknown[] };
      if (response.statusCode !== 200 || !Array.isArray(body.items))
        throw new Error(`search answered ${response.statusCode}`);
      byClass.get(cases[i % cases.length].class)?.latencies.push(performance.now() - begin);
    };
    const direct = async (i: number) => {
      await searchAs(sql, null, queries[i % queries.length]);
    };

    const answers = await Promise.all(queries.map((query) => searchAs(sql, null, query)));
    console.log(
      `# hits per query: ${cases.map((item, i) => `[${item.class}] ${JSON.stringify(item.q)}${item.kinds ? ` [${item.kinds}]` : ''}${item.spaceIndex === undefined ? '' : ' [one space]'} ${answers[i].total}${answers[i].total_is_estimate ? ' (estimate)' : ''}${answers[i].suggestions.length ? ` suggests ${JSON.stringify(answers[i].suggestions)}` : ''}`).join(', ')}`,
    );
    // The candidate ranking against ranking every match, for the queries over the threshold, per class. Ranking
    // every match of a prefix found in nearly every row (`st`) takes minutes at 1m: there only medium and broad.
    // Its own connection: the exact ranking of a broad query at 1m outlasts the hub's statement timeout.
    const overlapShare = new Map<QueryClass, number>();
    const reference = postgres(db.url, { max: 1, onnotice: () => undefined });
    for (const name of scale > 1 ? ['medium' as const, 'broad' as const] : classes) {
      const overlaps: string[] = [];
      let kept = 0;
      let compared = 0;
      for (const [i, item] of cases.entries()) {
        if (item.class !== name || !answers[i].total_is_estimate) continue;
        const exact = await searchAll(reference, { ...options[i], exact: true });
        const fast = await searchAll(reference, options[i]);
        const top = new Set(exact.items.map((hit) => hit.id));
        const shared = fast.items.filter((hit) => top.has(hit.id)).length;
        kept += shared;
        compared += top.size;
        overlaps.push(`${JSON.stringify(item.q)} ${shared}/${top.size}`);
      }
      if (compared === 0) continue;
      overlapShare.set(name, kept / compared);
      console.log(
        `top-${sizes.limit} overlap with exact ranking, ${name} queries over the threshold: ` +
          `${((100 * kept) / compared).toFixed(1)}% (${overlaps.join(', ')})`,
      );
    }
    await reference.end();
    const warm: Tally = { latencies: [], seconds: 0 };
    await load(warm, sizes.warmup, sizes.concurrency, http);
    const warmFigures = figures('GET /api/search, warm-up', warm);
    await load(warm, sizes.warmup, sizes.concurrency, direct);
    for (const tally of byClass.values()) tally.latencies.length = 0;
    // Alternating rounds, so a change in the machine's load during the run touches both paths alike.
    const rounds = 10;
    const viaHttp: Tally = { latencies: [], seconds: 0 };
    const viaSql: Tally = { latencies: [], seconds: 0 };
    for (let round = 0; round < rounds; round++) {
      const count = Math.ceil(sizes.requests / rounds);
      await load(viaHttp, count, sizes.concurrency, (i) => http(round * count + i));
      await load(viaSql, count, sizes.concurrency, (i) => direct(round * count + i));
    }
    await client.close();

    const httpFigures = figures('GET /api/search', viaHttp);
    const sqlFigures = figures('searchAs (postgres.js)', viaSql);
    console.log(
      `# ${httpFigures.requests} requests per path in ${rounds} alternating rounds, concurrency ${sizes.concurrency}, ` +
        `${cases.length} queries, limit ${sizes.limit}; load average at start: ${loadBefore.toFixed(1)}, ` +
        `at end: ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
    );
    console.log(row(httpFigures));
    console.log(row(sqlFigures));
    console.log(`${row(warmFigures)}  (from new connections)`);
    console.log(
      `ratio HTTP / direct: throughput ${(httpFigures.perSecond / sqlFigures.perSecond).toFixed(3)}, ` +
        `p50 ${(httpFigures.p50 / sqlFigures.p50).toFixed(3)}, p95 ${(httpFigures.p95 / sqlFigures.p95).toFixed(3)}`,
    );
    console.log(`per query class (HTTP, concurrency ${sizes.concurrency}):`);
    for (const [name, tally] of byClass) {
      tally.seconds = viaHttp.seconds;
      console.log(row(figures(`  ${name}`, tally)));
    }
    if (scale === 1) return true;
    const p95Ok = httpFigures.p95 <= targets.p95Ms;
    const broadOverlap = overlapShare.get('broad');
    const overlapOk = broadOverlap !== undefined && broadOverlap >= targets.broadOverlap;
    console.log(
      `mix p95 (GET /api/search, concurrency ${sizes.concurrency})  ${httpFigures.p95.toFixed(1)} ms  ` +
        `target <= ${targets.p95Ms} ms: ${p95Ok ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `broad top-${sizes.limit} overlap with exact ranking  ` +
        `${broadOverlap === undefined ? 'none over the threshold' : `${(100 * broadOverlap).toFixed(1)}%`}  ` +
        `target >= ${100 * targets.broadOverlap}%: ${overlapOk ? 'ok' : 'MISSED'}`,
    );
    console.log(`database size  ${size.size}`);
    return p95Ok && overlapOk;
  } finally {
    await closeApp?.();
    await rm(dataDir, { recursive: true, force: true });
    await db.close();
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
