// Databases a benchmark fills: a scratch one it throws away (a fresh embedded cluster under the system temp dir, or,
// with DATABASE_URL, a scratch database created next to the one named there; its role needs CREATEDB; close()
// removes it), or one it fills once and keeps (keptDatabase). Benchmarks import this; bench/run.ts only runs the
// files directly in bench/.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startEmbeddedPostgres, stopEmbeddedPostgres } from '../../lib/embedded-postgres.ts';

export interface ScratchDatabase {
  url: string;
  /** The embedded cluster's superuser (checkpoints); absent with DATABASE_URL. */
  adminUrl?: string;
  close(): Promise<void>;
}

/** `name` tells concurrent benchmarks' scratch databases and directories apart. */
export async function scratchDatabase(name: string): Promise<ScratchDatabase> {
  const external = process.env.DATABASE_URL;
  if (external) {
    const database = `ops_hub_bench_${name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
    const admin = postgres(external, { max: 1, onnotice: () => undefined });
    await admin.unsafe(`create database ${database}`);
    const url = new URL(external);
    url.pathname = `/${database}`;
    return {
      url: url.toString(),
      async close() {
        await admin.unsafe(`drop database if exists ${database} with (force)`);
        await admin.end();
      },
    };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), `ops-hub-bench-${name}-`));
  // As root the cluster runs as the postgres user, who must traverse this directory.
  await chmod(dir, 0o755);
  const runtimeDir = path.join(os.tmpdir(), 'ops-hub-bench-runtime');
  const cluster = await startEmbeddedPostgres({
    dir: path.join(dir, 'pg'),
    runtimeDir,
    appRole: 'hub_bench',
    appDatabase: 'hub_bench',
    log: (message) => console.log(`# ${message}`),
  });
  return {
    url: cluster.url,
    adminUrl: cluster.adminUrl,
    async close() {
      await stopEmbeddedPostgres({ dir: path.join(dir, 'pg'), runtimeDir, log: console.error });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface KeptDatabase extends ScratchDatabase {
  /** Empties the database (drops and creates it again), for a load that starts over. */
  reset(): Promise<void>;
}

/**
 * A database a benchmark fills once and keeps between runs: an embedded cluster in `dir` (created on first use,
 * left in place by close()), or, with DATABASE_URL, the database `ops_hub_bench_<name>` next to the one named there
 * (created when missing; its role needs CREATEDB). Whether what it holds is complete is the benchmark's to judge.
 */
export async function keptDatabase(name: string, dir: string): Promise<KeptDatabase> {
  const external = process.env.DATABASE_URL;
  if (external) {
    const database = `ops_hub_bench_${name.replace(/\W/g, '_')}`;
    const admin = postgres(external, { max: 1, onnotice: () => undefined });
    const [found] = await admin`select 1 from pg_database where datname = ${database}`;
    if (!found) await admin.unsafe(`create database ${database}`);
    const url = new URL(external);
    url.pathname = `/${database}`;
    return {
      url: url.toString(),
      async reset() {
        await admin.unsafe(`drop database if exists ${database} with (force)`);
        await admin.unsafe(`create database ${database}`);
      },
      async close() {
        await admin.end();
      },
    };
  }
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  const runtimeDir = path.join(os.tmpdir(), 'ops-hub-bench-runtime');
  const options = {
    dir: path.join(dir, 'pg'),
    runtimeDir,
    log: (message: string) => console.log(`# ${message}`),
  };
  const cluster = await startEmbeddedPostgres({ ...options, appRole: 'hub_bench', appDatabase: 'hub_bench' });
  return {
    url: cluster.url,
    adminUrl: cluster.adminUrl,
    async reset() {
      const admin = postgres(cluster.adminUrl, { max: 1, onnotice: () => undefined });
      try {
        await admin`drop database if exists hub_bench with (force)`;
        await admin`create database hub_bench owner hub_bench`;
      } finally {
        await admin.end();
      }
    },
    async close() {
      await stopEmbeddedPostgres(options);
    },
  };
}
