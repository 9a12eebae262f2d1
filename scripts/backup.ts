// `npm run backup [-- --out FILE]`: writes an archive of the hub (every table of its database as one consistent
// moment, plus the voice clips) to BACKUP_DIR, or to FILE, encrypted when BACKUP_PASSPHRASE is set. Works while the
// hub runs, and with the embedded database or DATABASE_URL. The run is recorded like a scheduled one.
import { parseArgs } from 'node:util';
import { loadConfigOrExit } from '../config/index.ts';
import { runBackup } from '../domains/hub-backup/run.ts';
import { openHubDatabase } from './hub-database.ts';

const { values } = parseArgs({ options: { out: { type: 'string' } }, strict: true });
const config = loadConfigOrExit();
let database: Awaited<ReturnType<typeof openHubDatabase>> | null = null;
try {
  database = await openHubDatabase(config, { shared: true });
  const run = await runBackup(database.sql, config, {
    trigger: 'command',
    out: values.out,
    log: { warn: (message) => console.error(message) },
  });
  const where = values.out ?? `${config.backup.dir}/${run.file_name}`;
  console.log(
    `backup written to ${where} (${run.size_bytes} bytes in ${run.duration_ms} ms${run.encrypted ? ', encrypted' : ''})`,
  );
  if (run.removed.length > 0) console.log(`retention removed: ${run.removed.join(', ')}`);
} catch (error) {
  console.error(`backup: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await database?.close();
}
