// Run by before.ts, once before the test files: starts the test cluster and builds the migrated template database.
import { spawn } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runMigrations } from 'graphile-worker';
import postgres from 'postgres';
import { processAlive, startEmbeddedPostgres, stopEmbeddedPostgres } from '../../lib/embedded-postgres.ts';
import { migrate } from '../../lib/migrate.ts';
import {
  type ClusterState,
  clusterDir,
  clusterPrefix,
  runtimeDir,
  stateFile,
  withDatabase,
} from './cluster.ts';

const started = Date.now();
const external = process.env.DATABASE_URL;
let state: ClusterState;

// Runs that were killed leave their clusters behind: stop and remove those whose tap process is gone.
for (const entry of await readdir(os.tmpdir())) {
  const pid = Number(entry.slice(clusterPrefix.length));
  if (!entry.startsWith(clusterPrefix) || !Number.isInteger(pid) || processAlive(pid)) continue;
  const dir = path.join(os.tmpdir(), entry);
  await stopEmbeddedPostgres({ dir: `${dir}/pg`, runtimeDir, log: () => undefined }).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
}
await rm(clusterDir, { recursive: true, force: true });
await mkdir(clusterDir, { recursive: true, mode: 0o755 });

if (external) {
  state = { adminUrl: external, appUrl: external, template: `hub_template_${process.pid}`, embedded: false };
} else {
  const cluster = await startEmbeddedPostgres({
    dir: `${clusterDir}/pg`,
    runtimeDir,
    appRole: 'hub_test',
    appDatabase: 'hub_test',
    log: () => undefined,
  });
  state = { adminUrl: cluster.adminUrl, appUrl: cluster.url, template: 'hub_template', embedded: true };
}

const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
const owner = new URL(state.appUrl).username;
await admin.unsafe(`drop database if exists ${state.template} with (force)`);
await admin.unsafe(`create database ${state.template} owner "${owner}"`);
await admin.end();

const templateUrl = withDatabase(state.appUrl, state.template);
const sql = postgres(templateUrl, { max: 1, onnotice: () => undefined });
await migrate(sql);
await sql.end();
await runMigrations({ connectionString: templateUrl, logger: undefined });

if (state.embedded) {
  // This cluster holds throwaway test data: its writes need not survive a crash of the machine (the reliability
  // tests run their own clusters, with the hub's own settings). Without the flushes a file's database is cloned
  // about four times faster.
  const settings = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  for (const setting of ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']) {
    await settings.unsafe(`alter system set ${setting}`);
  }
  await settings`select pg_reload_conf()`;
  await settings.end();
}

// The janitor drops finished databases in the background; it says `ready` once it listens.
const janitor = spawn(process.execPath, [new URL('./database-janitor.ts', import.meta.url).pathname], {
  env: { ...process.env, OPS_HUB_TEST_ADMIN_URL: state.adminUrl },
  detached: true,
  stdio: ['ignore', 'pipe', 'ignore'],
});
await new Promise<void>((resolve, reject) => {
  janitor.stdout.once('data', () => resolve());
  janitor.once('exit', (code) => reject(new Error(`the database janitor exited (${code})`)));
});
janitor.stdout.destroy();
janitor.unref();
state.janitorPid = janitor.pid;

await writeFile(stateFile, JSON.stringify(state), { mode: 0o600 });
console.log(
  `# test database ready in ${Date.now() - started} ms (${state.embedded ? 'embedded' : 'DATABASE_URL'})`,
);
