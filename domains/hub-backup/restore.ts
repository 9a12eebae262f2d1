// Restoring an archive into a database: every checksum is checked first (archive.ts); a database holding tables is
// refused unless forced, and then emptied in one transaction; the migrations are applied up to the archive's last
// one, so the tables have the shape the data was read from; the data is loaded in one transaction (COPY FROM, the
// tables' own triggers off, reference checks on, sequences set); then the newer migrations bring it up to date.
// Voice clips go back to the clips folder, mode 0600.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { listMigrations, migrate } from '../../lib/migrate.ts';
import type { Sql } from '../../plugins/db.ts';
import { ArchiveRefusedError, openArchive } from './archive.ts';
import type { Manifest } from './schema.ts';
import {
  copyIn,
  databaseIsEmpty,
  emptyDatabase,
  loadOrder,
  schemaTables,
  sequenceExists,
  setSequence,
  setUserTriggers,
  truncateTables,
} from './store.ts';

export interface RestoreOptions {
  passphrase: string | null;
  /** Empty a database that holds tables first (otherwise it is refused). */
  force: boolean;
  clipsDir: string;
  /** Where an encrypted archive is decrypted to while it is read (removed after). */
  workDir: string;
  log: (line: string) => void;
}

export interface RestoreResult {
  manifest: Manifest;
  rows: number;
  files: number;
  /** Migrations applied after the data was loaded. */
  migrated: string[];
}

export async function restoreArchive(
  sql: Sql,
  file: string,
  options: RestoreOptions,
): Promise<RestoreResult> {
  const archive = await openArchive(file, { passphrase: options.passphrase, workDir: options.workDir });
  try {
    const { manifest } = archive;
    const known = (await listMigrations()).map((migration) => migration.version);
    if (manifest.last_migration > Math.max(0, ...known)) {
      throw new ArchiveRefusedError(
        `the archive was made by a newer hub (migration ${manifest.last_migration}; this one knows up to ` +
          `${Math.max(0, ...known)}): restore it with that version or a later one`,
      );
    }
    options.log(
      `archive of ${manifest.created_at} (hub ${manifest.hub_version}, migration ${manifest.last_migration}): ` +
        `${manifest.tables.length} tables and ${manifest.files.length} files, every checksum matches`,
    );
    if (!(await databaseIsEmpty(sql))) {
      if (!options.force) {
        throw new ArchiveRefusedError(
          'the database is not empty: restore into an empty one, or add --force to empty it',
        );
      }
      await sql.begin((tx) => emptyDatabase(tx));
      options.log('emptied the database');
    }
    await migrate(sql, undefined, manifest.last_migration);
    const rows = await sql.begin(async (tx) => {
      const present = new Map((await schemaTables(tx)).map((table) => [table.name, table]));
      for (const table of manifest.tables) {
        const here = present.get(table.name);
        if (!here)
          throw new ArchiveRefusedError(
            `the table ${table.name} of the archive does not exist at its migration`,
          );
        const missing = table.columns.filter((column) => !here.columns.includes(column));
        if (missing.length > 0) {
          throw new ArchiveRefusedError(
            `the table ${table.name} has no column ${missing.join(', ')} at the archive's migration`,
          );
        }
      }
      const order = await loadOrder(
        tx,
        manifest.tables.map((table) => table.name),
      );
      // Rows the migrations seeded are replaced by the archive's.
      await truncateTables(tx, [...present.keys()]);
      let loaded = 0;
      for (const name of order) {
        const table = manifest.tables.find((entry) => entry.name === name);
        if (!table) continue;
        options.log(`loading ${name}`);
        await setUserTriggers(tx, name, false);
        await pipeline(await archive.part(table.part), await copyIn(tx, table));
        await setUserTriggers(tx, name, true);
        loaded += table.rows;
      }
      for (const sequence of manifest.sequences) {
        if (await sequenceExists(tx, sequence.name)) await setSequence(tx, sequence);
      }
      return loaded;
    });
    options.log(`loaded ${rows} rows`);
    const migrated = await migrate(sql);
    if (migrated.length > 0) options.log(`applied newer migrations: ${migrated.join(', ')}`);
    await restoreFiles(manifest, archive.part, options.clipsDir);
    return { manifest, rows, files: manifest.files.length, migrated };
  } finally {
    await archive.close();
  }
}

async function restoreFiles(
  manifest: Manifest,
  part: (name: string) => Promise<NodeJS.ReadableStream>,
  clipsDir: string,
): Promise<void> {
  if (manifest.files.length === 0) return;
  await mkdir(clipsDir, { recursive: true, mode: 0o700 });
  await chmod(clipsDir, 0o700);
  for (const file of manifest.files) {
    const target = path.join(clipsDir, path.basename(file.name));
    const temporary = `${target}.${randomBytes(4).toString('hex')}.partial`;
    try {
      await pipeline(await part(file.part), createWriteStream(temporary, { mode: 0o600 }));
      await rename(temporary, target);
    } finally {
      await rm(temporary, { force: true });
    }
  }
}
