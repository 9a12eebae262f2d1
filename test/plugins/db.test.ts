// The database pool, the mapping of database errors to HTTP, and the migrations, all on a real PostgreSQL.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Fastify from 'fastify';
import postgres from 'postgres';
import t from 'tap';
import {
  createSql,
  cutConnections,
  endSql,
  resumeConnections,
  type Sql,
  watchDatabase,
} from '../../lib/db.ts';
import { listMigrations, migrate } from '../../lib/migrate.ts';
import errors, { mapDatabaseError } from '../../plugins/errors.ts';
import { testApp, testDatabase } from '../helpers/app.ts';
import { readClusterState, withDatabase } from '../helpers/cluster.ts';
import { freePort, until } from '../helpers/process.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A new database with nothing in it, owned by the service role. */
async function emptyDatabase(t: Teardown): Promise<string> {
  const state = await readClusterState();
  const name = `hub_e_${randomBytes(6).toString('hex')}`;
  const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name} owner "${new URL(state.appUrl).username}"`);
  t.teardown(async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  return withDatabase(state.appUrl, name);
}

function pool(t: Teardown, url: string): Sql {
  const sql = createSql(url, { warn: () => undefined });
  t.teardown(() => endSql(sql));
  return sql;
}

t.test('a dropped idle connection is logged and the next request still works', async (t) => {
  const warnings: string[] = [];
  const ta = await testApp(t, { dbLog: { warn: (_object, message) => warnings.push(message) } });
  // Several requests at once, so the pool holds more than one connection.
  const first = await Promise.all([1, 2, 3].map(() => ta.asOwner({ method: 'GET', url: '/api/spaces' })));
  t.same(
    first.map((response) => response.statusCode),
    [200, 200, 200],
  );

  const state = await readClusterState();
  const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  t.teardown(() => admin.end());
  const terminated = await admin`
    select pg_terminate_backend(pid) from pg_stat_activity
    where datname = ${ta.db.name} and application_name = 'ops-hub'`;
  t.ok(terminated.length >= 1, `terminated ${terminated.length} connection(s) of the app's pool`);
  await until('the dropped connections to be logged', async () =>
    warnings.length >= terminated.length ? true : undefined,
  );
  t.match(warnings[0], /database connection dropped/);

  const after = await ta.asOwner({ method: 'GET', url: '/api/spaces' });
  t.equal(after.statusCode, 200, 'the next request opens a new connection');
  const [{ statement_timeout }] = await ta.sql`show statement_timeout`;
  t.equal(statement_timeout, '30s', 'the pool runs with a 30 s statement timeout');
});

t.test('database errors reach the client as status codes, never as SQL or stacks', async (t) => {
  const db = await testDatabase(t);
  const logs: string[] = [];
  const app = Fastify({
    logger: {
      level: 'info',
      stream: new Writable({
        write(chunk, _encoding, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    },
  });
  await app.register(errors);
  const down = pool(t, `postgres://hub:secret@127.0.0.1:${await freePort()}/nowhere`);
  const routes: Record<string, () => Promise<unknown>> = {
    unique: async () => {
      await db.sql`insert into spaces (name) values ('twice')`;
      await db.sql`insert into spaces (name) values ('twice')`;
    },
    uuid: () => db.sql`select ${'not-a-uuid'}::uuid`,
    timeout: () =>
      db.sql.begin(async (tx) => {
        await tx`set local statement_timeout = 50`;
        await tx`select pg_sleep(2)`;
      }),
    down: () => down`select 1`,
    unmapped: () => db.sql`select secret_column from no_such_table`,
    thrown: async () => {
      throw new Error('internal detail: select * from owner_secrets');
    },
  };
  for (const [name, run] of Object.entries(routes)) app.get(`/${name}`, async () => run());
  await app.ready();
  t.teardown(() => app.close());

  const expected: [string, number, string][] = [
    ['unique', 409, 'UNIQUE_VIOLATION'],
    ['uuid', 400, 'INVALID_INPUT'],
    ['timeout', 503, 'STATEMENT_TIMEOUT'],
    ['down', 503, 'DATABASE_UNAVAILABLE'],
    ['unmapped', 500, 'INTERNAL'],
    ['thrown', 500, 'INTERNAL'],
  ];
  for (const [route, statusCode, code] of expected) {
    const response = await app.inject({ method: 'GET', url: `/${route}` });
    t.equal(response.statusCode, statusCode, `${route}: ${statusCode}`);
    const body = response.json();
    t.match(body, { statusCode, code, error: String, message: String }, `${route}: the error body`);
    t.same(Object.keys(body).sort(), ['code', 'error', 'message', 'statusCode']);
    if (statusCode >= 500) {
      t.notMatch(
        response.body,
        /select|pg_sleep|no_such_table|secret|owner_secrets|\bat \S+:\d+|node_modules/i,
      );
    }
  }
  const logged = logs.join('');
  t.match(logged, /no_such_table/, 'the detail of a 5xx goes to the log');
  t.match(logged, /owner_secrets/);
});

t.test('mapDatabaseError', async (t) => {
  const cases: [Record<string, string>, number | null][] = [
    [{ code: '23505', constraint_name: 'spaces_name_key' }, 409],
    [{ code: '23503' }, 409],
    [{ code: '22P02' }, 400],
    [{ code: '23514' }, 400],
    [{ code: '57014' }, 503],
    [{ code: 'ECONNREFUSED' }, 503],
    [{ code: 'CONNECTION_ENDED' }, 503],
    [{ code: '57P01' }, 503],
    [{ code: '08006' }, 503],
    [{ code: '3D000' }, 503],
    [{ code: '53300' }, 503],
    [{ code: '42P01' }, null],
    [{}, null],
  ];
  for (const [error, status] of cases) {
    t.equal(mapDatabaseError(error)?.statusCode ?? null, status, `${error.code ?? 'no code'} → ${status}`);
  }
  const duplicate = mapDatabaseError({
    code: '23505',
    constraint_name: 'spaces_name_key',
    table_name: 'spaces',
    detail: 'Key (name)=(Home) already exists.',
  });
  t.equal(duplicate?.message, 'a space named "Home" already exists', 'what clashed, in words');
  t.notMatch(duplicate?.message, 'spaces_name_key', 'never the constraint name');
});

t.test('a database that goes away answers 503, not 500', async (t) => {
  const ta = await testApp(t);
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/spaces' })).statusCode, 200);
  const state = await readClusterState();
  const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`drop database ${ta.db.name} with (force)`);
  await admin.end();
  const response = await ta.asOwner({ method: 'GET', url: '/api/spaces' });
  t.equal(response.statusCode, 503);
  t.equal(response.json().code, 'DATABASE_UNAVAILABLE');
  t.notMatch(response.body, new RegExp(ta.db.name));
});

t.test('migrations: applied once, and once only when two processes start together', async (t) => {
  const all = (await listMigrations()).map((m) => `${String(m.version).padStart(4, '0')}_${m.name}`);
  t.ok(all.length >= 1);

  const url = await emptyDatabase(t);
  const [a, b] = [pool(t, url), pool(t, url)];
  const [appliedA, appliedB] = await Promise.all([migrate(a), migrate(b)]);
  t.same([...appliedA, ...appliedB].sort(), all, 'every file is applied by exactly one of the two');
  const rows = await a<{ version: number }[]>`select version from schema_migrations order by version`;
  t.same(
    rows.map((row) => row.version),
    all.map((name) => Number(name.slice(0, 4))),
  );
  t.same(await migrate(a), [], 'a second run applies nothing');
});

t.test('readiness reports pending migrations as not ready', async (t) => {
  const ta = await testApp(t, { worker: true });
  const ready = await ta.anon({ method: 'GET', url: '/api/readyz' });
  t.equal(ready.statusCode, 200);
  t.same(ready.json(), {
    status: 'ready',
    database: true,
    migrations: { pending: [] },
    worker: 'running',
    reasons: [],
  });

  const [{ version }] = await ta.sql<{ version: number }[]>`
    delete from schema_migrations where version = (select max(version) from schema_migrations) returning version`;
  const pending = await ta.anon({ method: 'GET', url: '/api/readyz' });
  t.equal(pending.statusCode, 503);
  t.same(pending.json(), {
    status: 'not_ready',
    database: true,
    migrations: { pending: [version] },
    worker: 'running',
    reasons: [`migrations not applied yet: ${version}`],
  });
});

t.test(
  'a busy process does not take a ping answered in time for a database that stopped answering',
  async (t) => {
    const db = await testDatabase(t);
    const downs: string[] = [];
    const watch = watchDatabase(db.url, {
      intervalMs: 60_000,
      timeoutMs: 300,
      onDown: (reason) => downs.push(reason),
    });
    t.teardown(() => watch.stop());
    t.equal(await watch.check(), true, 'the first ping opens the connection');
    const ping = watch.check();
    await nextTurn(); // the query is written
    // Busy well past the deadline: the server (another process) answers meanwhile, even on a loaded machine.
    const until = Date.now() + 3000;
    while (Date.now() < until);
    t.equal(await ping, true, 'the answer that came in time counts');
    t.same(downs, []);
    t.equal(watch.problem(), null);
  },
);

t.test("cutting a pool's connections fails the queries waiting on them; the pool carries on", async (t) => {
  const db = await testDatabase(t);
  const sql = pool(t, db.url);
  t.equal((await sql`select 1 as one`)[0].one, 1);
  const waiting = sql`select pg_sleep(30)`.then(
    () => 'answered',
    (error: { code?: string }) => error.code,
  );
  await until('the query to be running', async () => {
    const [row] = await db.sql`
      select count(*)::int as n from pg_stat_activity where query = 'select pg_sleep(30)' and state = 'active'`;
    return row.n === 1 ? true : undefined;
  });
  const started = Date.now();
  t.ok(cutConnections(sql) >= 1, 'the open connections were cut');
  t.equal(await waiting, 'CONNECTION_CLOSED', 'the waiting query fails at once');
  t.ok(Date.now() - started < 1000, `within ${Date.now() - started} ms`);
  const refusedAt = Date.now();
  const refused = await sql`select 2`.then(
    () => 'answered',
    (error: { code?: string }) => error.code,
  );
  t.equal(refused, 'ECONNREFUSED', 'a query needing a new connection fails at once while cut');
  t.ok(Date.now() - refusedAt < 1000, `within ${Date.now() - refusedAt} ms, not after connect_timeout`);
  resumeConnections(sql);
  t.equal((await sql`select 2 as two`)[0].two, 2, 'once resumed, the next query opens a new connection');
});
