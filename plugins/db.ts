// The database pool: postgres.js with a 30 s statement timeout. A connection dropped while idle (server
// restart, pg_terminate_backend, network blip) is logged; postgres.js opens a new one for the next query.
// A watch pings the database every second on a connection of its own: while it goes unanswered (server stopped,
// restarting or frozen) API requests answer 503 DATABASE_UNAVAILABLE at once instead of queueing behind a pool
// that cannot connect, and /api/readyz says not ready within its own short timeout.
import fp from 'fastify-plugin';
import postgres, { type ISql, type Sql } from 'postgres';
import { hubError } from '../lib/errors.ts';

export type { Sql };
/** A pool or a transaction: what store functions take, so callers decide the transaction. */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
export type Db = ISql<{}>;

export interface DbLogger {
  warn(object: object, message: string): void;
}

const ending = new WeakSet<Sql>();

/** Seconds before reconnecting after `attempts` failed connections: 0.1 s more each time, at most 1 s. */
export function reconnectBackoff(attempts: number): number {
  return Math.min(0.1 * attempts, 1);
}

export function createSql(url: string, log: DbLogger, max = 10): Sql {
  // No idle timeout: a connection only closes when something went wrong, so every close is worth a line.
  const sql: Sql = postgres(url, {
    max,
    // Seconds. A server that is up answers a connect in milliseconds; a stopped or frozen one should fail the
    // request quickly rather than hold it for the driver's default 30 s.
    connect_timeout: 2,
    // postgres.js waits before reconnecting a connection that failed, up to 20 s after a run of failures (an
    // outage): the first requests after the database is back would wait that long. Back off briefly instead.
    backoff: reconnectBackoff,
    onnotice: () => undefined,
    onclose: (connectionId: number) => {
      if (!ending.has(sql))
        log.warn({ connectionId }, 'database connection dropped; a new one opens on demand');
    },
    // TimeZone UTC: a plain date sent for a timestamp (due_at: "2026-12-05") is midnight UTC on every server.
    connection: { statement_timeout: 30_000, application_name: 'ops-hub', TimeZone: 'UTC' },
    transform: { undefined: null },
  });
  return sql;
}

/** Ends the pool quietly: these closes are ours, not dropped connections. */
export async function endSql(sql: Sql): Promise<void> {
  ending.add(sql);
  await sql.end({ timeout: 5 });
}

/** Refuses a superuser role: the service must not be able to bypass the database's own protections. */
export async function assertNotSuperuser(sql: Sql, allow: boolean): Promise<void> {
  const [row] = await sql<{ rolsuper: boolean; role: string }[]>`
    select rolsuper, rolname as role from pg_roles where rolname = current_user`;
  if (row?.rolsuper && !allow) {
    throw new Error(
      `the database role "${row.role}" is a superuser; connect with a role without superuser rights ` +
        'or set DATABASE_ALLOW_SUPERUSER=1 to accept the risk',
    );
  }
}

export interface DatabaseWatch {
  /** False from the first unanswered ping until the next answered one. */
  up(): boolean;
  /** Pings now (or joins the ping under way); false when no answer comes within the watch's timeout. */
  check(): Promise<boolean>;
  stop(): Promise<void>;
}

/** Pings `url` every `intervalMs` on a connection of its own, each ping given `timeoutMs` to answer. */
export function watchDatabase(url: string, intervalMs = 1000, timeoutMs = 1000): DatabaseWatch {
  let client: Sql | null = null;
  let up = true;
  let pending: Promise<boolean> | null = null;
  let stopped = false;

  const drop = () => {
    // A ping that went unanswered leaves its connection waiting on a server that may never reply: end it so
    // the next ping starts afresh.
    client?.end({ timeout: 0 }).catch(() => undefined);
    client = null;
  };

  const ping = async (): Promise<boolean> => {
    client ??= postgres(url, {
      max: 1,
      connect_timeout: timeoutMs / 1000,
      idle_timeout: 0,
      backoff: reconnectBackoff,
      onnotice: () => undefined,
      connection: { application_name: 'ops-hub-watch' },
    });
    let timer: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      client`select 1`.then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!answered) drop();
    up = answered;
    return answered;
  };

  const check = () => {
    if (stopped) return Promise.resolve(up);
    pending ??= ping().finally(() => {
      pending = null;
    });
    return pending;
  };

  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return {
    up: () => up,
    check,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pending;
      await client?.end({ timeout: 1 }).catch(() => undefined);
      client = null;
    },
  };
}

/** Routes that answer without the database: liveness, readiness (asks the watch itself) and the version. */
const withoutDatabase = new Set(['/api/healthz', '/api/readyz', '/api/version']);

declare module 'fastify' {
  interface FastifyInstance {
    sql: Sql;
    /** Null when the app was built without a database URL to watch. */
    database: DatabaseWatch | null;
  }
}

export default fp<{ sql: Sql; databaseUrl?: string }>(
  async (app, { sql, databaseUrl }) => {
    app.decorate('sql', sql);
    const watch = databaseUrl ? watchDatabase(databaseUrl) : null;
    app.decorate('database', watch);
    if (!watch) return;
    app.addHook('onRequest', async (request) => {
      if (watch.up() || !request.url.startsWith('/api/')) return;
      if (withoutDatabase.has(request.routeOptions.url ?? '')) return;
      throw hubError('DATABASE_UNAVAILABLE');
    });
    app.addHook('onClose', () => watch.stop());
  },
  { name: 'db' },
);
