// The service as a user runs it: `node main.ts` (and `node worker/main.ts`) as child processes on their own data
// directory, talked to over HTTP on 127.0.0.1.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import postgres from 'postgres';
import t from 'tap';
import { addJob } from '../worker/enqueue.ts';
import { readClusterState, withDatabase } from './helpers/cluster.ts';
import {
  freePort,
  processAlive,
  processes,
  repoRoot,
  type Service,
  serviceDatabase,
  until,
} from './helpers/process.ts';

const { version } = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
};

const procs = processes(t);

/**
 * Starts `node main.ts` (LOG_LEVEL=info, so its lines can be checked) and waits until it is ready: up to three minutes,
 * as the starts of the two sequences below share the machine.
 */
function startHub(env: Record<string, string>): Promise<Service> {
  return procs.startService({ LOG_LEVEL: 'info', ...env }, 180_000);
}

async function api<T = unknown>(
  hub: Service,
  token: string | null,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${hub.url}${route}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function postmasterPid(dataDir: string): Promise<number> {
  const text = await readFile(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8');
  return Number(text.split('\n')[0]);
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Connections of this database listening for new jobs: one per running graphile-worker. */
async function listeningWorkers(sql: postgres.Sql): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from pg_stat_activity
    where datname = current_database() and query like 'LISTEN "jobs:insert"%'`;
  return row.count;
}

/** Waits for the number of listening workers to settle at `count` (connections open and close asynchronously). */
async function settlesAt(sql: postgres.Sql, count: number): Promise<number> {
  return until(`${count} listening worker(s)`, async () => {
    const now = await listeningWorkers(sql);
    return now === count ? now : undefined;
  }).catch(() => listeningWorkers(sql));
}

const dataDir = await procs.dataDir();
let hub: Service;
let token: string;
let spaceId: string;

// Two independent sequences, run side by side: most of a start is spent waiting on the database server and on
// other processes, so the second sequence fills that time. Within each sequence the tests run in order.
t.jobs = 2;

t.test(
  'one data directory through first start, shutdown, restart, a hard kill and a separate worker',
  async (t) => {
    t.test('first start on a fresh data directory', async (t) => {
      hub = await startHub({ DATA_DIR: dataDir });
      t.comment(`first start to ready: ${hub.readyMs} ms`);

      const ready = await api(hub, null, 'GET', '/api/readyz');
      t.same(ready.body, {
        status: 'ready',
        database: true,
        migrations: { pending: [] },
        worker: 'running',
        reasons: [],
      });

      const output = hub.child.output();
      t.match(output, `listening on http://127.0.0.1:${new URL(hub.url).port}`, 'prints where it listens');
      t.match(output, `ops-hub ${version}`, 'prints the version');
      t.match(output, `embedded PostgreSQL in ${path.join(dataDir, 'postgres')}`, 'prints which database');
      await hub.child.waitForOutput(/"component":"worker"[^\n]*Worker connected/);
      t.pass("the worker's own lines go through the logger");

      const credentials = JSON.parse(
        await readFile(path.join(dataDir, 'postgres', 'credentials.json'), 'utf8'),
      );
      const passwords = [credentials.superuserPassword, ...Object.values(credentials.roles)] as string[];
      t.ok(passwords.length >= 2);
      for (const password of passwords) t.notOk(output.includes(password), 'no database password is printed');

      const tokenFile = path.join(dataDir, 'owner-token');
      t.equal((await stat(tokenFile)).mode & 0o777, 0o600, 'the owner token is kept with mode 0600');
      token = (await readFile(tokenFile, 'utf8')).trim();
      t.ok(token.length >= 32);
      t.match(output, token, 'the generated token is printed');
      t.match(output, 'Authorization: Bearer <token>', 'with how to use it');
      t.equal((await stat(path.join(dataDir, 'runtime.json'))).mode & 0o777, 0o600);

      t.equal((await api(hub, null, 'GET', '/api/spaces')).status, 401);
      t.equal((await api(hub, 'x'.repeat(token.length), 'GET', '/api/spaces')).status, 401);
      const created = await api<{ id: string }>(hub, token, 'POST', '/api/spaces', {
        name: 'Kept across restarts',
      });
      t.equal(created.status, 201, 'the printed token works on an owner route');
      spaceId = created.body.id;

      const sql = await serviceDatabase(dataDir);
      t.equal(await settlesAt(sql, 1), 1, 'the in-process worker listens for jobs');
      await sql.end();
    });

    t.test('Ctrl-C finishes the request in flight, stops the database and exits 0', async (t) => {
      const postmaster = await postmasterPid(dataDir);
      t.ok(processAlive(postmaster));

      // A request whose body is still arriving when the signal comes.
      const body = JSON.stringify({ name: 'Sent during shutdown' });
      const half = Math.floor(body.length / 2);
      const request = http.request(`${hub.url}/api/spaces`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      });
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        request.on('response', (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => {
            text += chunk.toString('utf8');
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        request.on('error', reject);
      });
      request.write(body.slice(0, half));
      const socket = await new Promise<net.Socket>((resolve) => request.on('socket', resolve));
      await new Promise((resolve) => (socket.connecting ? socket.once('connect', resolve) : resolve(null)));
      await hub.child.waitForOutput(new RegExp(`"remotePort":${socket.localPort}\\}[^\\n]*incoming request`));

      hub.child.process.kill('SIGINT');
      await hub.child.waitForOutput(/shutting down/);
      const refused = await fetch(`${hub.url}/api/healthz`).then(
        (r) => r.status,
        () => 'refused',
      );
      t.not(refused, 200, 'no new requests are taken once shutting down');
      request.end(body.slice(half));

      const answer = await response;
      t.equal(answer.status, 201, 'the request in flight completes');
      t.equal(JSON.parse(answer.body).name, 'Sent during shutdown');
      t.same(await hub.child.exited, { code: 0, signal: null }, 'exits 0');
      await until('the postmaster to exit', async () => (processAlive(postmaster) ? undefined : true), 5000);
      t.pass('the embedded PostgreSQL is stopped');
      t.notOk(await exists(path.join(dataDir, 'postgres', 'data', 'postmaster.pid')));
      t.match(hub.child.output(), /"msg":"stopped"/);
    });

    t.test('a second start reuses the data and keeps the token to itself', async (t) => {
      hub = await startHub({ DATA_DIR: dataDir, INGEST_ALLOW_PRIVATE: '192.168.1.0/24, wiki.lan' });
      t.comment(`restart to ready: ${hub.readyMs} ms`);
      const spaces = await api<{ items: { name: string }[] }>(hub, token, 'GET', '/api/spaces');
      t.equal(spaces.status, 200);
      t.same(spaces.body.items.map((space) => space.name).sort(), [
        'Kept across restarts',
        'Sent during shutdown',
      ]);
      t.equal((await api(hub, token, 'GET', `/api/spaces/${spaceId}`)).status, 200);
      t.notOk(hub.child.output().includes(token), 'the token is not printed again');
      t.notMatch(hub.child.output(), /owner token was generated/);
      t.equal((await readFile(path.join(dataDir, 'owner-token'), 'utf8')).trim(), token);
      t.match(
        hub.child.output(),
        /"level":40,[^\n]*INGEST_ALLOW_PRIVATE is set: captures and icon-set URLs may reach these private addresses: 192\.168\.1\.0\/24, wiki\.lan/,
        'the private addresses opened to outbound fetches are logged at start',
      );
    });

    t.test('after a hard kill the next start stops the leftover database and works', async (t) => {
      const postmaster = await postmasterPid(dataDir);
      hub.child.process.kill('SIGKILL');
      t.same(await hub.child.exited, { code: null, signal: 'SIGKILL' });
      t.ok(processAlive(postmaster), 'the detached database outlives a hard-killed hub');
      // What an upload being received at the kill leaves behind.
      await mkdir(path.join(dataDir, 'incoming'), { recursive: true });
      await writeFile(path.join(dataDir, 'incoming', 'cut-short'), 'half an upload');

      hub = await startHub({ DATA_DIR: dataDir });
      t.same(await readdir(path.join(dataDir, 'incoming')), [], 'a half-received upload is removed at start');
      t.comment(`start after a hard kill to ready: ${hub.readyMs} ms`);
      t.match(hub.child.output(), `stopping an embedded database left running (pid ${postmaster})`);
      await until(
        'the leftover postmaster to exit',
        async () => (processAlive(postmaster) ? undefined : true),
        5000,
      );
      t.pass('the leftover server was stopped');
      t.equal((await api(hub, token, 'GET', `/api/spaces/${spaceId}`)).status, 200, 'the data is intact');

      hub.child.process.kill('SIGTERM');
      t.same(await hub.child.exited, { code: 0, signal: null });
    });

    t.test('WORKER_MODE=separate leaves the jobs to `npm run worker`', async (t) => {
      hub = await startHub({ DATA_DIR: dataDir, WORKER_MODE: 'separate' });
      t.match((await api(hub, null, 'GET', '/api/readyz')).body, {
        status: 'ready',
        worker: 'separate',
        worker_processes: 0,
      });

      const sql = await serviceDatabase(dataDir);
      t.teardown(() => sql.end());
      t.equal(await listeningWorkers(sql), 0, 'the hub runs no worker');
      await sql`create table test_job_records (note text not null)`;
      const note = randomBytes(4).toString('hex');
      const job = await addJob(sql, 'test.record', { note });
      const [waiting] = await sql`select attempts from graphile_worker.jobs where id = ${job.id}`;
      t.same(waiting, { attempts: 0 }, 'the enqueued job waits');

      // The worker entry point with one test task added (worker/main.ts exports what `npm run worker` runs).
      const worker = procs.spawn('test/fixtures/worker-with-record-task.ts', {
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      });
      await worker.waitForOutput(/worker running/);
      t.match(
        (await api(hub, null, 'GET', '/api/readyz')).body,
        { status: 'ready', worker_processes: 1 },
        'readiness counts the worker process',
      );
      const [row] = await until('the job to run', async () => {
        const rows = await sql<{ note: string }[]>`select note from test_job_records`;
        return rows.length ? rows : undefined;
      }).catch((error: Error) => {
        throw new Error(`${error.message}; the worker printed:\n${worker.output()}`);
      });
      t.same(row, { note }, 'the separate worker ran the job');
      const left = await until('the job to be done', async () => {
        const rows = await sql`select id from graphile_worker.jobs where id = ${job.id}`;
        return rows.length === 0 ? rows : undefined;
      });
      t.same(left, [], 'and it is done');
      t.equal(await settlesAt(sql, 1), 1);
      t.notOk(
        worker
          .output()
          .includes(JSON.parse(await readFile(path.join(dataDir, 'runtime.json'), 'utf8')).databaseUrl),
      );

      worker.process.kill('SIGINT');
      t.same(await worker.exited, { code: 0, signal: null }, 'the worker stops cleanly on SIGINT');
      t.match(worker.output(), /worker stopped/);

      const plain = procs.spawn('worker/main.ts', { DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      await plain.waitForOutput(/"component":"worker"[^\n]*Worker connected/);
      t.equal(await settlesAt(sql, 1), 1, '`npm run worker` connects');
      plain.process.kill('SIGTERM');
      t.same(await plain.exited, { code: 0, signal: null }, 'and stops cleanly on SIGTERM');
      t.equal(await settlesAt(sql, 0), 0);

      hub.child.process.kill('SIGINT');
      t.same(await hub.child.exited, { code: 0, signal: null });
    });
  },
);

t.test('starts that are refused, and starts on a DATABASE_URL of their own', async (t) => {
  t.test('configuration errors print one line naming the variable and exit non-zero', async (t) => {
    const cases: [string, Record<string, string>][] = [
      ['PORT', { PORT: '70000' }],
      ['PORT', { PORT: 'eighty' }],
      ['DATABASE_URL', { DATABASE_URL: 'postgres://user:pw@' }],
      ['DATABASE_URL', { DATABASE_URL: 'mysql://user:pw@127.0.0.1:3306/hub' }],
      ['ACCESS_AUDIENCE', { ACCESS_TEAM_DOMAIN: 'team.example.com' }],
      ['WORKER_MODE', { WORKER_MODE: 'sometimes' }],
      ['OWNER_TOKEN', { OWNER_TOKEN: 'short' }],
      ['OWNER_TOKEN_FILE', { OWNER_TOKEN: 'x'.repeat(24), OWNER_TOKEN_FILE: '/nonexistent/owner-token' }],
      ['DATABASE_URL_FILE', { DATABASE_URL_FILE: '/nonexistent/database-url' }],
    ];
    const configDir = await procs.dataDir();
    const lost = procs.spawn('worker/main.ts', { DATA_DIR: configDir, LOG_LEVEL: 'info' });
    t.equal((await lost.exited).code, 1, 'a worker with no database to find exits 1');
    t.match(lost.output(), /set DATABASE_URL, or start the hub \(npm start\) with the same DATA_DIR first/);

    await Promise.all(
      cases.map(async ([variable, env]) => {
        const child = procs.spawn('main.ts', { DATA_DIR: configDir, ...env });
        const exit = await child.exited;
        const lines = child.stderr().trim().split('\n');
        t.not(exit.code, 0, `${JSON.stringify(env)} exits non-zero`);
        t.equal(lines.length, 1, `${JSON.stringify(env)} prints one line`);
        t.match(lines[0], new RegExp(`^configuration error: ${variable} `), `naming ${variable}`);
        t.equal(child.stdout(), '');
      }),
    );
    t.notOk(await exists(configDir), 'nothing is created before the configuration is valid');
  });

  t.test('a superuser DATABASE_URL is refused unless explicitly allowed', async (t) => {
    const state = await readClusterState();
    const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
    const name = `hub_su_${randomBytes(4).toString('hex')}`;
    await admin.unsafe(`create database ${name}`);
    t.teardown(async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
    const [{ rolsuper }] = await admin`select rolsuper from pg_roles where rolname = current_user`;
    t.ok(rolsuper, "the test cluster's admin role is a superuser");
    const url = withDatabase(state.adminUrl, name);
    const password = decodeURIComponent(new URL(url).password);
    const env = {
      DATA_DIR: await procs.dataDir(),
      DATABASE_URL: url,
      OWNER_TOKEN: 'a-test-owner-token-of-enough-length',
    };

    const refused = procs.spawn('main.ts', { ...env, PORT: String(await freePort()) });
    t.equal((await refused.exited).code, 1);
    t.match(refused.stderr(), /is a superuser[^\n]*DATABASE_ALLOW_SUPERUSER=1/);
    t.notOk(refused.output().includes(password), 'the password is not printed');

    // A port someone else holds: one clear line, exit 1.
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    t.teardown(() => holder.close());
    const taken = (holder.address() as net.AddressInfo).port;
    const busy = procs.spawn('main.ts', {
      ...env,
      DATABASE_ALLOW_SUPERUSER: '1',
      HOST: '127.0.0.1',
      PORT: String(taken),
    });
    t.equal((await busy.exited).code, 1, 'a port in use stops start-up');
    t.match(busy.stderr(), new RegExp(`cannot listen on 127\\.0\\.0\\.1:${taken}: .*\\(set PORT or HOST\\)`));

    const allowed = await startHub({ ...env, DATABASE_ALLOW_SUPERUSER: '1' });
    t.match(allowed.child.output(), `(database: ${new URL(url).protocol}//${new URL(url).username}:***@`);
    t.notOk(allowed.child.output().includes(password), 'the password is masked');
    t.equal((await api(allowed, 'a-test-owner-token-of-enough-length', 'GET', '/api/spaces')).status, 200);
    allowed.child.process.kill('SIGTERM');
    t.same(await allowed.child.exited, { code: 0, signal: null });
  });

  t.test(
    'secrets given as files: the hub starts on the database and owner token its _FILE variables name',
    async (t) => {
      const state = await readClusterState();
      const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
      const name = `hub_file_${randomBytes(4).toString('hex')}`;
      await admin.unsafe(`create database ${name}`);
      t.teardown(async () => {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      });
      const url = withDatabase(state.adminUrl, name);
      const dataDir = await procs.dataDir();
      const secrets = path.join(path.dirname(dataDir), 'secrets');
      await mkdir(secrets, { mode: 0o700 });
      const token = `file-token-${randomBytes(12).toString('hex')}`;
      await writeFile(path.join(secrets, 'owner_token'), `${token}\n`, { mode: 0o600 });
      await writeFile(path.join(secrets, 'database_url'), `${url}\n`, { mode: 0o600 });

      const hub = await startHub({
        DATA_DIR: dataDir,
        DATABASE_ALLOW_SUPERUSER: '1',
        OWNER_TOKEN_FILE: path.join(secrets, 'owner_token'),
        DATABASE_URL_FILE: path.join(secrets, 'database_url'),
      });
      t.equal(
        (await api(hub, token, 'GET', '/api/spaces')).status,
        200,
        'the token from the file is the owner',
      );
      t.notOk(hub.child.output().includes(token), 'the token is not printed');
      const [{ count }] = await admin.unsafe(
        `select count(*)::int as count from pg_stat_activity where datname = $1`,
        [name],
      );
      t.ok(count > 0, 'the hub is connected to the database the file names');
      hub.child.process.kill('SIGTERM');
      t.same(await hub.child.exited, { code: 0, signal: null });
    },
  );
});
