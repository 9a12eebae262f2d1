// Entry point: configuration, database (embedded or DATABASE_URL), migrations, app, worker, listen, shutdown.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import module from 'node:module';
import path from 'node:path';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { type Config, loadConfigOrExit } from './config/index.ts';
import { describeDatabaseUrl, runtimeFile } from './config/server.ts';
import { assertNotSuperuser, createSql, type DbLogger, endSql, type Sql } from './lib/db.ts';
import {
  type EmbeddedPostgres,
  launchEmbeddedPostgres,
  stopEmbeddedPostgres,
} from './lib/embedded-postgres.ts';
import { clearIncoming, incomingLeftoverMs } from './lib/incoming.ts';
import { DataDirInUseError, type InstanceLock, lockDataDir } from './lib/instance-lock.ts';
import { type MemoryRelease, releaseFreedMemory } from './lib/memory.ts';
import { migrate } from './lib/migrate.ts';
import { judgeUnhandledRejections } from './lib/rejections.ts';
import { version } from './lib/version.ts';

// Node's compile cache keeps the compiled (and type-stripped) code of the app's modules, so a restart loads them
// faster.
module.enableCompileCache();

/**
 * Loads the app's modules: about a second on this thread, during which nothing else here runs, so main() starts
 * the embedded database's server process first and the two starts overlap.
 */
function loadApp() {
  const loading = Promise.all([import('./app.ts'), import('graphile-worker'), import('./plugins/jobs.ts')]);
  loading.catch(() => undefined);
  return loading;
}

/** The owner token from OWNER_TOKEN, or the one generated on first start and kept in the data directory. */
async function ownerToken(config: Config): Promise<{ token: string; generated: boolean; file: string }> {
  const file = path.join(config.server.dataDir, 'owner-token');
  if (config.access.ownerToken) return { token: config.access.ownerToken, generated: false, file };
  const kept = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  if (kept) return { token: kept, generated: false, file };
  const token = randomBytes(32).toString('base64url');
  await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, generated: true, file };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const embedded = config.database.url
    ? null
    : {
        dir: path.join(config.server.dataDir, 'postgres'),
        runtimeDir: path.join(config.server.dataDir, 'runtime'),
        log: (message: string) => console.log(`[database] ${message}`),
      };

  let app: FastifyInstance | null = null;
  let memory: MemoryRelease | null = null;
  let sql: Sql | null = null;
  // The pool exists before the app's logger does; once the app is built its warnings go through that logger.
  const dbLog: DbLogger = { warn: (object, message) => console.warn(`[database] ${message}`, object) };

  // With the embedded database, one service per data directory, checked before anything is touched: a second
  // start must not stop the first one's database. On DATABASE_URL several processes share one database (README,
  // "More than one machine"), so none is locked out. (`npm run worker` takes no lock: it runs beside the service.)
  await mkdir(config.server.dataDir, { recursive: true, mode: 0o711 });
  let lock: InstanceLock | null = null;
  try {
    if (embedded) lock = lockDataDir(config.server.dataDir);
  } catch (error) {
    console.error(
      error instanceof DataDirInUseError ? error.message : `start-up failed: ${(error as Error).message}`,
    );
    process.exit(1);
  }

  // Uploads a previous run was receiving when it stopped: no request is in flight yet, so none of them is wanted.
  // Beside other processes on a shared data directory, only those left long enough not to be anyone's upload.
  await clearIncoming(config.server.dataDir, lock ? 0 : incomingLeftoverMs);

  // Whatever ends the process (a signal, an error, an exit during start-up, a second Ctrl-C that cuts the graceful
  // shutdown short), the embedded database it started is stopped and the lock released.
  let database: EmbeddedPostgres | null = null;
  let databaseStopped = false;
  process.on('exit', () => {
    if (database && !databaseStopped) database.stopSync();
    lock?.release();
  });

  // Installed before anything starts, so Ctrl-C during start-up also stops the embedded database. Rejections are
  // judged below rather than all being fatal.
  const grace = closeWithGrace({ delay: 15_000, skip: ['unhandledRejection'] }, async ({ signal, err }) => {
    if (err) (app?.log ?? console).error({ err }, 'shutting down after an error');
    else app?.log.info({ signal }, 'shutting down: no new requests, finishing in-flight ones');
    memory?.stop();
    try {
      // Stops accepting connections, waits for in-flight requests, then stops the worker (jobs plugin onClose).
      await app?.close();
    } finally {
      if (sql) await endSql(sql).catch(() => undefined);
      if (embedded) await stopEmbeddedPostgres(embedded);
      databaseStopped = true;
    }
    app?.log.info('stopped');
  });
  judgeUnhandledRejections(
    () => app?.log ?? console,
    () => void grace.close(),
  );

  let databaseUrl: string;
  let loading: ReturnType<typeof loadApp> | null = null;
  try {
    if (embedded) {
      const starting = launchEmbeddedPostgres({ ...embedded, appRole: 'hub', appDatabase: 'hub' });
      await starting.launched;
      loading = loadApp();
      const started = await starting.ready;
      database = started;
      databaseUrl = started.url;
      await writeFile(runtimeFile(config.server.dataDir), JSON.stringify({ databaseUrl }), { mode: 0o600 });
    } else {
      loading = loadApp();
      databaseUrl = config.database.url as string;
    }
    sql = createSql(databaseUrl, dbLog);
    await assertNotSuperuser(sql, config.database.allowSuperuser);
    const applied = await migrate(sql);
    if (applied.length) console.log(`[database] applied migrations: ${applied.join(', ')}`);
    // Stored integration secrets need their key: a lost or wrong one stops the start here, naming where it came from.
    const [{ checkSecretKey }, { hub }] = await Promise.all([
      import('./domains/integrations/keyring.ts'),
      import('./modules.ts'),
    ]);
    const secretKey = await checkSecretKey(sql, config.server, hub.sealed);
    if (secretKey.created) {
      console.log(`A new secret key was saved to ${secretKey.source} (mode 0600): back it up with the data.`);
    }
  } catch (error) {
    console.error(`start-up failed: ${(error as Error).message}`);
    if (sql) await endSql(sql).catch(() => undefined);
    if (embedded) await stopEmbeddedPostgres(embedded).catch(() => undefined);
    databaseStopped = true;
    process.exit(1);
  }

  const owner = await ownerToken(config);
  const [{ buildApp }, { runMigrations }, { workerLogger }] = await (loading ?? loadApp());
  app = await buildApp({
    config,
    sql,
    databaseUrl,
    ownerToken: owner.token,
    logger: { level: config.server.logLevel },
  });
  const log = app.log;
  dbLog.warn = (object, message) => log.warn(object, message);
  if (config.ingest.allowPrivateFetch) {
    app.log.warn(
      'VOID_INGEST_ALLOW_PRIVATE is on: outbound fetches may reach private addresses (tests only)',
    );
  }
  if (config.ingest.allowPrivate) {
    const listed = config.ingest.allowPrivate.text;
    app.log.warn(
      { INGEST_ALLOW_PRIVATE: listed },
      `INGEST_ALLOW_PRIVATE is set: captures and icon-set URLs may reach these private addresses: ${listed}`,
    );
  }
  // Enqueueing needs graphile-worker's schema even when a separate worker process runs the jobs. An in-process
  // worker installs it as it starts, before the app is ready (graphile-worker's run() migrates first).
  if (config.jobs.workerMode !== 'in-process') {
    await runMigrations({
      connectionString: databaseUrl,
      logger: workerLogger(app.log.child({ component: 'worker' })),
    });
  }

  try {
    await app.listen({ port: config.server.port, host: config.server.host });
  } catch (error) {
    console.error(
      `cannot listen on ${config.server.host}:${config.server.port}: ${(error as Error).message} (set PORT or HOST)`,
    );
    await app.close();
    await endSql(sql).catch(() => undefined);
    if (embedded) await stopEmbeddedPostgres(embedded);
    databaseStopped = true;
    process.exit(1);
  }
  const described = embedded ? `embedded PostgreSQL in ${embedded.dir}` : describeDatabaseUrl(databaseUrl);
  app.log.info(
    { version, database: described, worker: config.jobs.workerMode, ready_ms: Math.round(performance.now()) },
    `ops-hub ${version} listening on http://${config.server.host}:${config.server.port} (database: ${described})`,
  );
  // The start is over: the memory it used and freed goes back to the system, and so does what later work frees.
  memory = releaseFreedMemory({
    onRelease: (rss) => log.debug({ rss_before: rss.before, rss_after: rss.after }, 'returned freed memory'),
  });
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
