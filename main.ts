// Entry point: configuration, database (embedded or DATABASE_URL), migrations, app, worker, listen, shutdown.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.ts';
import { type Config, ConfigError, describeDatabaseUrl, loadConfig } from './config.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from './lib/embedded-postgres.ts';
import { migrate } from './lib/migrate.ts';
import { version } from './lib/version.ts';
import { assertNotSuperuser, createSql, endSql } from './plugins/db.ts';

/** The owner token from OWNER_TOKEN, or the one generated on first start and kept in the data directory. */
async function ownerToken(config: Config): Promise<{ token: string; generated: boolean; file: string }> {
  const file = path.join(config.dataDir, 'owner-token');
  if (config.ownerToken) return { token: config.ownerToken, generated: false, file };
  const kept = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  if (kept) return { token: kept, generated: false, file };
  const token = randomBytes(32).toString('base64url');
  await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, generated: true, file };
}

/** Where a separate worker process finds the embedded database of this data directory. */
export function runtimeFile(config: Config): string {
  return path.join(config.dataDir, 'runtime.json');
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }

  const started = Date.now();
  const logger = { level: config.logLevel };
  await mkdir(config.dataDir, { recursive: true, mode: 0o711 });

  let embedded: EmbeddedPostgres | null = null;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await startEmbeddedPostgres({
      dir: path.join(config.dataDir, 'postgres'),
      runtimeDir: path.join(config.dataDir, 'runtime'),
      appRole: 'hub',
      appDatabase: 'hub',
      log: (message) => console.log(`[database] ${message}`),
    });
    databaseUrl = embedded.url;
    await writeFile(runtimeFile(config), JSON.stringify({ databaseUrl }), { mode: 0o600 });
  }

  const sql = createSql(databaseUrl, { warn: (object, message) => console.warn(message, object) });
  const shutdownDatabase = async () => {
    await endSql(sql).catch(() => undefined);
    await embedded?.stop();
  };
  try {
    await assertNotSuperuser(sql, config.databaseAllowSuperuser);
    const applied = await migrate(sql);
    if (applied.length) console.log(`[database] applied migrations: ${applied.join(', ')}`);
  } catch (error) {
    console.error(`start-up failed: ${(error as Error).message}`);
    await shutdownDatabase();
    process.exit(1);
  }

  const owner = await ownerToken(config);
  const app = await buildApp({ config, sql, databaseUrl, ownerToken: owner.token, logger });
  if (config.allowPrivateFetch) {
    app.log.warn(
      'VOID_INGEST_ALLOW_PRIVATE is on: outbound fetches may reach private addresses (tests only)',
    );
  }

  closeWithGrace({ delay: 15_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'shutting down after an error');
    else app.log.info({ signal }, 'shutting down: no new requests, finishing in-flight ones');
    await app.close();
    await shutdownDatabase();
    app.log.info('stopped');
  });

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    console.error(
      `cannot listen on ${config.host}:${config.port}: ${(error as Error).message} (set PORT or HOST)`,
    );
    await app.close();
    await shutdownDatabase();
    process.exit(1);
  }
  const database = embedded
    ? `embedded PostgreSQL in ${path.join(config.dataDir, 'postgres')}`
    : describeDatabaseUrl(databaseUrl);
  app.log.info(
    { version, database, worker: config.workerMode, ready_ms: Date.now() - started },
    `ops-hub ${version} listening on http://${config.host}:${config.port} (database: ${database})`,
  );
  if (owner.generated) {
    console.log(
      [
        '',
        `  A new owner token was generated and saved to ${owner.file} (mode 0600):`,
        '',
        `      ${owner.token}`,
        '',
        '  Send it as "Authorization: Bearer <token>"; it is not printed again. Set OWNER_TOKEN to choose your own.',
        '',
      ].join('\n'),
    );
  }
}

await main();
