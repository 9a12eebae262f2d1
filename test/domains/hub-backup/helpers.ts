// What the hub-backup tests share: an empty database of the service role, and an app on an existing database.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import postgres from 'postgres';
import { buildApp } from '../../../app.ts';
import { type Config, loadConfig } from '../../../config/index.ts';
import { createSql, endSql, type Sql } from '../../../lib/db.ts';
import { ownerToken } from '../../helpers/app.ts';
import { readClusterState, withDatabase } from '../../helpers/cluster.ts';
import { childEnvironment, repoRoot } from '../../helpers/process.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A database with nothing in it, owned by the service role, dropped at teardown. */
export async function emptyDatabase(t: Teardown): Promise<{ url: string; sql: Sql }> {
  const state = await readClusterState();
  const name = `hub_r_${randomBytes(6).toString('hex')}`;
  const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name} template template0 owner "${new URL(state.appUrl).username}"`);
  await admin.end();
  const url = withDatabase(state.appUrl, name);
  const sql = createSql(url, { warn: () => undefined });
  t.teardown(async () => {
    await endSql(sql);
    const dropper = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
    await dropper.unsafe(`drop database if exists ${name} with (force)`);
    await dropper.end();
  });
  return { url, sql };
}

export interface RestoredApp {
  app: FastifyInstance;
  config: Config;
  asOwner(request: InjectOptions): Promise<LightMyRequestResponse>;
}

/** The app on an existing database (a restored one), with its own data directory. */
export async function appOn(
  t: Teardown,
  db: { url: string; sql: Sql },
  env: Record<string, string>,
): Promise<RestoredApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-restored-'));
  const config = loadConfig({ DATA_DIR: dataDir, OWNER_TOKEN: ownerToken, LOG_LEVEL: 'silent', ...env });
  const app = await buildApp({
    config,
    sql: db.sql,
    databaseUrl: db.url,
    ownerToken,
    worker: 'off',
    cron: false,
  });
  await app.ready();
  t.teardown(async () => {
    await app.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return {
    app,
    config,
    asOwner: (request) =>
      app.inject({ ...request, headers: { authorization: `Bearer ${ownerToken}`, ...request.headers } }),
  };
}

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node <script> ...args` from the repository (what `npm run backup|restore -- ...` runs), with only `env`. */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<ScriptResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(repoRoot, script), ...args],
      {
        cwd: os.tmpdir(),
        env: childEnvironment(env),
        timeout: 90_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A temporary directory removed at teardown. */
export async function tempDir(t: Teardown, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `ops-hub-${prefix}-`));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
