// The hub's database for the command-line tools (backup, restore): DATABASE_URL when set; otherwise the embedded one
// under DATA_DIR, started for the command when the hub is stopped, or the running hub's (its URL is in
// DATA_DIR/runtime.json) when `shared` allows it.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/index.ts';
import { runtimeFile } from '../config/server.ts';
import { createSql, endSql, type Sql } from '../lib/db.ts';
import { startEmbeddedPostgres, stopEmbeddedPostgres } from '../lib/embedded-postgres.ts';
import { DataDirInUseError, type InstanceLock, lockDataDir } from '../lib/instance-lock.ts';

export interface HubDatabase {
  sql: Sql;
  close(): Promise<void>;
}

/**
 * Opens the hub's database. With `shared`, a running hub is no obstacle (a backup reads beside it); without, the data
 * directory's lock is held until close, so the hub cannot start meanwhile (a restore).
 */
export async function openHubDatabase(config: Config, options: { shared: boolean }): Promise<HubDatabase> {
  await mkdir(config.server.dataDir, { recursive: true, mode: 0o711 });
  let lock: InstanceLock | null = null;
  try {
    lock = lockDataDir(config.server.dataDir);
  } catch (error) {
    if (!(error instanceof DataDirInUseError) || !options.shared) throw error;
  }
  const log = { warn: (_object: object, message: string) => console.warn(`[database] ${message}`) };
  const embedded =
    config.database.url || !lock
      ? null
      : {
          dir: path.join(config.server.dataDir, 'postgres'),
          runtimeDir: path.join(config.server.dataDir, 'runtime'),
          log: (message: string) => console.error(`[database] ${message}`),
        };
  try {
    let url: string;
    if (config.database.url) url = config.database.url;
    else if (embedded)
      url = (await startEmbeddedPostgres({ ...embedded, appRole: 'hub', appDatabase: 'hub' })).url;
    else
      url = (
        JSON.parse(await readFile(runtimeFile(config.server.dataDir), 'utf8')) as { databaseUrl: string }
      ).databaseUrl;
    const sql = createSql(url, log, 2);
    return {
      sql,
      async close() {
        await endSql(sql).catch(() => undefined);
        if (embedded) await stopEmbeddedPostgres(embedded);
        lock?.release();
      },
    };
  } catch (error) {
    if (embedded) await stopEmbeddedPostgres(embedded).catch(() => undefined);
    lock?.release();
    throw error;
  }
}
