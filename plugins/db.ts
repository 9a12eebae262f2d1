// The database pool: postgres.js with a 30 s statement timeout. A connection dropped while idle (server
// restart, pg_terminate_backend, network blip) is logged; postgres.js opens a new one for the next query.
import fp from 'fastify-plugin';
import postgres, { type ISql, type Sql } from 'postgres';

export type { Sql };
/** A pool or a transaction: what store functions take, so callers decide the transaction. */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
export type Db = ISql<{}>;

export interface DbLogger {
  warn(object: object, message: string): void;
}

const ending = new WeakSet<Sql>();

export function createSql(url: string, log: DbLogger, max = 10): Sql {
  // No idle timeout: a connection only closes when something went wrong, so every close is worth a line.
  const sql: Sql = postgres(url, {
    max,
    connect_timeout: 10,
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

declare module 'fastify' {
  interface FastifyInstance {
    sql: Sql;
  }
}

export default fp<{ sql: Sql }>(
  async (app, { sql }) => {
    app.decorate('sql', sql);
  },
  { name: 'db' },
);
