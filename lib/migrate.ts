// Numbered forward-only migrations from sql/, each applied in its own transaction. The advisory lock taken in
// every transaction serialises concurrent starts (hub and separate worker), so each file runs exactly once.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Sql } from 'postgres';

export const migrationsDir = path.join(import.meta.dirname, '..', 'sql');
const lockKey = 7_406_551_203;

export interface Migration {
  version: number;
  name: string;
  file: string;
}

export async function listMigrations(dir = migrationsDir): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file)).sort();
  return files.map((file) => ({
    version: Number(file.slice(0, 4)),
    name: file.slice(5, -4),
    file: path.join(dir, file),
  }));
}

/** Applies the pending migrations (those numbered up to `upTo` only, when given: a restore loads data in between). */
export async function migrate(
  sql: Sql,
  dir = migrationsDir,
  upTo = Number.POSITIVE_INFINITY,
): Promise<string[]> {
  await sql`create table if not exists schema_migrations (
    version integer primary key,
    name text not null,
    applied_at timestamptz not null default now()
  )`.catch(async (error: { code?: string }) => {
    // Two processes creating the table at once: one wins, the other sees a duplicate key, table or row type
    // (23505, 42P07 or 42710, depending on where the race is lost).
    if (error.code !== '23505' && error.code !== '42P07' && error.code !== '42710') throw error;
  });
  // Versions recorded before this start: a restart opens no transaction for them (one each took a quarter of a
  // second in all). The check inside the transaction stays for a process applying the same file at the same time.
  const recorded = new Set(
    (await sql<{ version: number }[]>`select version from schema_migrations`).map((row) => row.version),
  );
  const applied: string[] = [];
  for (const migration of await listMigrations(dir)) {
    if (migration.version > upTo) break;
    if (recorded.has(migration.version)) continue;
    const body = await readFile(migration.file, 'utf8');
    await sql.begin(async (tx) => {
      // A crash may lose the commit of a migration, never half of it: it is applied again at the next start. Not
      // waiting for each commit's flush makes a first start's fifty migrations faster.
      await tx`set local synchronous_commit = off`;
      await tx`select pg_advisory_xact_lock(${lockKey})`;
      const [done] = await tx`select 1 from schema_migrations where version = ${migration.version}`;
      if (done) return;
      await tx.unsafe(body);
      await tx`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
      applied.push(`${String(migration.version).padStart(4, '0')}_${migration.name}`);
    });
  }
  return applied;
}

/** Versions present in sql/ but not yet recorded in the database. */
export async function pendingMigrations(sql: Sql, dir = migrationsDir): Promise<number[]> {
  const rows = await sql<{ version: number }[]>`select version from schema_migrations`.catch(() => []);
  const done = new Set(rows.map((row) => row.version));
  return (await listMigrations(dir)).map((m) => m.version).filter((version) => !done.has(version));
}
