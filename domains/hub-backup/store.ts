// SQL of the hub's own backups: the schema's tables and sequences as the archive sees them, COPY out and in, the
// database emptied for a restore, and the record of each run.
import type { Readable, Writable } from 'node:stream';
import type { Db } from '../../plugins/db.ts';
import type { HubBackupRunRow, NewHubBackupRun } from './schema.ts';

/** The migrations' own record: rebuilt by the migrations a restore applies, never loaded from an archive. */
const migrationsTable = 'schema_migrations';

export interface TableColumns {
  name: string;
  /**
   * Stored columns in their order; generated ones are left out (they are computed again on load), and so are
   * transaction ids (xid8), which mean something only in the cluster that wrote them: restored rows take their
   * column's default, the restoring transaction's id.
   */
  columns: string[];
}

/** The tables of the hub's schema with their stored columns, by name. */
export async function schemaTables(sql: Db): Promise<TableColumns[]> {
  const rows = await sql<{ name: string; columns: string[] }[]>`
    select c.relname as name,
           array_agg(a.attname::text order by a.attnum) as columns
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                          and a.atttypid <> 'xid8'::regtype
     where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
       and c.relname <> ${migrationsTable}
     group by c.relname
     order by c.relname`;
  return rows.map((row) => ({ name: row.name, columns: row.columns }));
}

export interface SequenceValue {
  name: string;
  /** int8 as text: beyond JavaScript's safe integers. */
  last_value: string;
  is_called: boolean;
}

export async function schemaSequences(sql: Db): Promise<SequenceValue[]> {
  const names = await sql<{ name: string }[]>`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and c.relkind = 'S' order by c.relname`;
  const values: SequenceValue[] = [];
  for (const { name } of names) {
    const [row] = await sql<{ last_value: string; is_called: boolean }[]>`
      select last_value::text as last_value, is_called from ${sql(name)}`;
    values.push({ name, last_value: row.last_value, is_called: row.is_called });
  }
  return values;
}

export async function lastMigration(sql: Db): Promise<number> {
  const [row] = await sql<
    { version: number | null }[]
  >`select max(version) as version from schema_migrations`;
  return row.version ?? 0;
}

export function copyOut(sql: Db, table: TableColumns): Promise<Readable> {
  return sql`copy ${sql(table.name)} (${sql(table.columns)}) to stdout`.readable();
}

export function copyIn(sql: Db, table: TableColumns): Promise<Writable> {
  return sql`copy ${sql(table.name)} (${sql(table.columns)}) from stdin`.writable();
}

/** Whether the database holds any table outside the system's schemas. */
export async function databaseIsEmpty(sql: Db): Promise<boolean> {
  const [row] = await sql<{ tables: number }[]>`
    select count(*)::int as tables from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
       and n.nspname not like 'pg_toast%'`;
  return row.tables === 0;
}

/** Drops everything the service's role owns in this database (tables, types, functions, the job queue's schema). */
export async function emptyDatabase(sql: Db): Promise<void> {
  await sql`drop owned by current_user`;
  await sql`create schema if not exists public`;
}

/** Tables in an order that loads referenced rows before the rows referring to them. */
export async function loadOrder(sql: Db, tables: readonly string[]): Promise<string[]> {
  const edges = await sql<{ child: string; parent: string }[]>`
    select distinct c.relname as child, p.relname as parent
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_class p on p.oid = k.confrelid
      join pg_namespace n on n.oid = c.relnamespace
     where k.contype = 'f' and n.nspname = current_schema() and k.conrelid <> k.confrelid`;
  const parents = new Map<string, Set<string>>(tables.map((name) => [name, new Set<string>()]));
  for (const edge of edges) parents.get(edge.child)?.add(edge.parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const ready = tables.filter(
      (name) =>
        !placed.has(name) && [...(parents.get(name) ?? [])].every((p) => placed.has(p) || !parents.has(p)),
    );
    // A cycle of references leaves nothing ready: the table waiting on the fewest others goes first (its references
    // into the cycle are null where rows exist on both sides, or the load fails naming the constraint).
    const unplaced = (name: string) => [...(parents.get(name) ?? [])].filter((p) => !placed.has(p)).length;
    const waiting = tables.filter((name) => !placed.has(name)).sort((a, b) => unplaced(a) - unplaced(b));
    const next = ready.length > 0 ? ready : waiting.slice(0, 1);
    for (const name of next) {
      placed.add(name);
      ordered.push(name);
    }
  }
  return ordered;
}

/** Empties the tables a restore loads (rows the migrations seeded included). */
export async function truncateTables(sql: Db, tables: readonly string[]): Promise<void> {
  if (tables.length > 0) await sql`truncate ${sql(tables as string[])} restart identity cascade`;
}

/**
 * The tables' own triggers (search words, page history, card notices) stay off while their rows are loaded: the
 * archive already holds what they would have written. Reference checks stay on.
 */
export async function setUserTriggers(sql: Db, table: string, enabled: boolean): Promise<void> {
  if (enabled) await sql`alter table ${sql(table)} enable trigger user`;
  else await sql`alter table ${sql(table)} disable trigger user`;
}

export async function setSequence(sql: Db, sequence: SequenceValue): Promise<void> {
  await sql`select setval(format('%I', ${sequence.name}::text)::regclass, ${sequence.last_value}::bigint, ${sequence.is_called})`;
}

export async function sequenceExists(sql: Db, name: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    select exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace
                    where n.nspname = current_schema() and c.relkind = 'S' and c.relname = ${name}) as found`;
  return row.found;
}

/** When the hub's database was first set up (its first migration), for judging missed runs. */
export async function installedAt(sql: Db): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`select min(applied_at) as at from schema_migrations`;
  return row.at;
}

const runColumns = (sql: Db) =>
  sql`id, started_at, finished_at, state, trigger, file_name, size_bytes::float8 as size_bytes, duration_ms, encrypted, error`;

export async function insertRun(sql: Db, run: NewHubBackupRun): Promise<HubBackupRunRow> {
  const [row] = await sql<HubBackupRunRow[]>`
    insert into hub_backup_runs (started_at, finished_at, state, trigger, file_name, size_bytes, duration_ms,
                                 encrypted, error)
    values (${run.started_at}, ${run.finished_at}, ${run.state}, ${run.trigger}, ${run.file_name},
            ${run.size_bytes}, ${run.duration_ms}, ${run.encrypted}, ${run.error})
    returning ${runColumns(sql)}`;
  return row;
}

export async function recentRuns(sql: Db, limit: number): Promise<HubBackupRunRow[]> {
  return sql<HubBackupRunRow[]>`
    select ${runColumns(sql)} from hub_backup_runs order by started_at desc limit ${limit}`;
}

export async function lastSuccessfulRun(sql: Db): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`
    select max(finished_at) as at from hub_backup_runs where state = 'succeeded'`;
  return row.at;
}
