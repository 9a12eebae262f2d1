// The separate job worker (`npm run worker`, for WORKER_MODE=separate): the same configuration and task list as
// the hub, on DATABASE_URL or on the embedded database the hub of this data directory started.
import { readFile } from 'node:fs/promises';
import closeWithGrace from 'close-with-grace';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { TaskList } from 'graphile-worker';
import { type Config, loadConfigOrExit } from '../config/index.ts';
import { describeDatabaseUrl, runtimeFile } from '../config/server.ts';
import { assertNotSuperuser, createSql, endSql, type Sql } from '../lib/db.ts';
import { releaseFreedMemory } from '../lib/memory.ts';
import { migrate } from '../lib/migrate.ts';
import { judgeUnhandledRejections } from '../lib/rejections.ts';
import { hub } from '../modules.ts';
import { superviseWorker } from '../plugins/jobs.ts';
import { buildTaskList } from './tasks.ts';

async function databaseUrl(config: Config): Promise<string> {
  if (config.database.url) return config.database.url;
  const file = runtimeFile(config.server.dataDir);
  const runtime = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as { databaseUrl?: string },
    () => ({ databaseUrl: undefined }),
  );
  if (!runtime.databaseUrl) {
    throw new Error(
      `no database: set DATABASE_URL, or start the hub (npm start) with the same DATA_DIR first (${file} is missing)`,
    );
  }
  return runtime.databaseUrl;
}

/** Waits for the database (the hub may still be starting it) rather than failing on the first refusal. */
async function reachable(sql: Sql, log: FastifyBaseLogger, database: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`select 1`;
      return;
    } catch (error) {
      if (attempt === 1) log.warn({ database, err: error }, 'waiting for the database');
      if (attempt >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

/**
 * Runs the worker until SIGINT or SIGTERM; `extraTasks` join the modules' tasks, `recoverySweepMs` shortens the
 * wait for a dead process's jobs (tests).
 */
export async function runWorkerProcess(
  extraTasks: TaskList = {},
  { recoverySweepMs }: { recoverySweepMs?: number } = {},
): Promise<void> {
  const config = loadConfigOrExit();
  // Fastify's logger is the hub's pino with the hub's settings, so both processes log alike.
  const log = Fastify({ logger: { level: config.server.logLevel } }).log.child({ component: 'worker' });
  let sql: Sql | null = null;
  let stopRunner: (() => Promise<void>) | null = null;

  const grace = closeWithGrace(
    {
      delay: 15_000,
      logger: { error: (error: unknown) => log.error(error) },
      skip: ['unhandledRejection'],
    },
    async ({ signal, err }) => {
      if (err) log.error({ err }, 'worker shutting down after an error');
      else log.info({ signal }, 'worker shutting down: finishing the jobs in flight');
      await stopRunner?.();
      if (sql) await endSql(sql).catch(() => undefined);
      log.info('worker stopped');
    },
  );
  judgeUnhandledRejections(
    () => log,
    () => void grace.close(),
  );

  let url: string;
  try {
    url = await databaseUrl(config);
    const database = describeDatabaseUrl(url);
    sql = createSql(url, { warn: (object, message) => log.warn(object, message) });
    await reachable(sql, log, database);
    await assertNotSuperuser(sql, config.database.allowSuperuser);
    // The hub migrates too; the advisory lock lets whichever starts first apply them.
    await migrate(sql);
  } catch (error) {
    log.error(`worker start-up failed: ${(error as Error).message}`);
    if (sql) await endSql(sql).catch(() => undefined);
    process.exit(1);
  }

  const deps = { sql, config };
  const taskList = buildTaskList(deps, {
    tasks: hub.tasks,
    cron: hub.cron(deps),
    extra: extraTasks,
    onFailed: hub.onJobFailed,
  });
  const worker = await superviseWorker({
    connectionString: url,
    taskList,
    concurrency: config.jobs.concurrency,
    log,
    cron: true,
    recoverySweepMs,
  });
  // As in the hub (main.ts): the start's freed memory, and what jobs free later, go back to the system.
  const memory = releaseFreedMemory({
    onRelease: (rss) => log.debug({ rss_before: rss.before, rss_after: rss.after }, 'returned freed memory'),
  });
  stopRunner = () => {
    memory.stop();
    return worker.stop();
  };
  log.info(
    {
      database: describeDatabaseUrl(url),
      tasks: Object.keys(taskList),
      concurrency: config.jobs.concurrency,
    },
    'worker running',
  );
}

if (import.meta.main) await runWorkerProcess();
