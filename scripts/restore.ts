// `npm run restore -- FILE [--force]`: restores an archive written by `npm run backup` (or the schedule) into the
// hub's database, with the hub stopped. Every checksum is checked first; a database that holds tables is refused
// unless --force, which empties it first. The migrations are applied up to the archive's, the data loaded, then the
// newer migrations applied. Set BACKUP_PASSPHRASE for an encrypted archive, and keep HUB_SECRET_KEY (or
// DATA_DIR/secret.key) as it was: the stored secrets in the archive are sealed under it.

import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../config/index.ts';
import { restoreArchive } from '../domains/hub-backup/restore.ts';
import { openHubDatabase } from './hub-database.ts';

const { values, positionals } = parseArgs({
  options: { force: { type: 'boolean', default: false } },
  allowPositionals: true,
  strict: true,
});
if (positionals.length !== 1) {
  console.error('usage: npm run restore -- FILE [--force]');
  process.exit(2);
}
const config = loadConfigOrExit();
const workDir = path.join(os.tmpdir(), `ops-hub-restore-${randomBytes(4).toString('hex')}`);
let database: Awaited<ReturnType<typeof openHubDatabase>> | null = null;
try {
  database = await openHubDatabase(config, { shared: false });
  const result = await restoreArchive(database.sql, path.resolve(positionals[0] as string), {
    passphrase: config.backup.passphrase,
    force: values.force ?? false,
    clipsDir: config.voice.clipsDir,
    workDir,
    log: (line) => console.log(line),
  });
  console.log(`restored ${result.rows} rows and ${result.files} files from ${positionals[0]}`);
} catch (error) {
  console.error(`restore: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await database?.close();
  await rm(workDir, { recursive: true, force: true });
}
