// The database plugin: decorates the app with the pool (lib/db.ts) and its watch. While the database does not answer,
// API requests answer 503 DATABASE_UNAVAILABLE at once (the health, readiness and version routes still answer).
import fp from 'fastify-plugin';
import { cutConnections, type DatabaseWatch, resumeConnections, type Sql, watchDatabase } from '../lib/db.ts';
import { hubError } from '../lib/errors.ts';

export type { Db, DbLogger, Sql } from '../lib/db.ts';

export const routesWithoutDatabase = new Set(['/api/healthz', '/api/readyz', '/api/version']);

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
    const watch = databaseUrl
      ? watchDatabase(databaseUrl, {
          onDown: (reason, error) => {
            const cut = cutConnections(sql);
            app.log.warn(
              { reason, err: error ?? undefined, connections: cut },
              'the database stopped answering: requests answer 503 and queries waiting on it fail until it is back',
            );
          },
          onUp: () => {
            resumeConnections(sql);
            app.log.info('the database answers again');
          },
        })
      : null;
    app.decorate('database', watch);
    if (!watch) return;
    app.addHook('onRequest', async (request) => {
      if (watch.up() || !request.url.startsWith('/api/')) return;
      if (routesWithoutDatabase.has(request.routeOptions.url ?? '')) return;
      throw hubError('DATABASE_UNAVAILABLE');
    });
    app.addHook('onClose', () => watch.stop());
  },
  { name: 'db' },
);
