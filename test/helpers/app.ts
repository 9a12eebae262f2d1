// Gives a test file an app on its own freshly migrated database (a clone of the run's template), with
// inject helpers for the owner, an agent and nobody. Everything is torn down when the test ends.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, FastifyServerOptions, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TaskList } from 'graphile-worker';
import postgres, { type Sql } from 'postgres';
import { type AppDeps, buildApp } from '../../app.ts';
import { type Config, loadConfig } from '../../config/index.ts';
import { createSql, type DbLogger, endSql } from '../../lib/db.ts';
import { databaseDropChannel, readClusterState, testDatabaseName, withDatabase } from './cluster.ts';

export const ownerToken = 'owner-test-token-0123456789abcdef';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface TestDatabase {
  url: string;
  adminUrl: string;
  name: string;
  sql: Sql;
}

/** A fresh database cloned from the migrated template, dropped at teardown. */
export async function testDatabase(
  t: Teardown,
  log: DbLogger = { warn: () => undefined },
): Promise<TestDatabase> {
  const state = await readClusterState();
  const name = testDatabaseName(randomBytes(6).toString('hex'));
  const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(
    `create database ${name} template ${state.template} owner "${new URL(state.appUrl).username}"`,
  );
  await admin.end();
  const url = withDatabase(state.appUrl, name);
  const sql = createSql(url, log);
  t.teardown(async () => {
    await endSql(sql);
    // Dropped in the background by the run's janitor (cluster-start.ts): a drop waits for a checkpoint.
    const announcer = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
    await announcer`select pg_notify(${databaseDropChannel}, ${name})`;
    await announcer.end();
  });
  return { url, adminUrl: withDatabase(state.adminUrl, name), name, sql };
}

export interface TestAppOptions {
  /** Extra environment settings, as the service would read them. */
  env?: Record<string, string>;
  /** Run the job worker in this process (default off: enqueue only). */
  worker?: boolean;
  extraTasks?: TaskList;
  /** Run the cron registry's minute tick with the worker (default off: tests drive recurring work themselves). */
  cron?: boolean;
  /** Receives the pool's warnings (dropped connections). */
  dbLog?: DbLogger;
  /** The app's clock (backup staleness). */
  now?: () => Date;
  /** When the app compiles its route schemas (AppDeps.compileSchemas). */
  compileSchemas?: AppDeps['compileSchemas'];
}

type Request = Omit<InjectOptions, 'headers'> & { headers?: Record<string, string> };

export interface TestApp {
  app: FastifyInstance;
  sql: Sql;
  db: TestDatabase;
  config: Config;
  dataDir: string;
  asOwner(request: Request): Promise<LightMyRequestResponse>;
  asAgent(token: string, request: Request): Promise<LightMyRequestResponse>;
  anon(request: Request): Promise<LightMyRequestResponse>;
}

export async function testApp(t: Teardown, options: TestAppOptions = {}): Promise<TestApp> {
  // The app (its worker and pools) closes before its database is dropped, whatever order the runner keeps teardowns
  // in: a worker still connected to a dropped database reports the dropped connections as errors.
  const databaseTeardowns: (() => unknown)[] = [];
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-data-'));
  let built: FastifyInstance | null = null;
  t.teardown(async () => {
    await built?.close();
    for (const teardown of databaseTeardowns) await teardown();
    await rm(dataDir, { recursive: true, force: true });
  });
  const db = await testDatabase({ teardown: (fn) => databaseTeardowns.push(fn) }, options.dbLog);
  const config = loadConfig({
    DATA_DIR: dataDir,
    OWNER_TOKEN: ownerToken,
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const app = await buildApp({
    config,
    sql: db.sql,
    databaseUrl: db.url,
    ownerToken,
    worker: options.worker ? 'in-process' : 'off',
    extraTasks: options.extraTasks,
    cron: options.cron ?? false,
    now: options.now,
    compileSchemas: options.compileSchemas,
  });
  built = app;
  await app.ready();
  const send = (authorization: string | null, request: Request) =>
    app.inject({
      ...request,
      headers: { ...(authorization ? { authorization } : {}), ...request.headers },
    } as InjectOptions);
  return {
    app,
    sql: db.sql,
    db,
    config,
    dataDir,
    asOwner: (request) => send(`Bearer ${ownerToken}`, request),
    asAgent: (token, request) => send(`Bearer ${token}`, request),
    anon: (request) => send(null, request),
  };
}

export interface TestAgent {
  id: string;
  token: string;
  tokenId: string;
}

/** Creates an agent through the owner API and mints a token for it. */
export async function createAgent(
  ta: TestApp,
  agent: {
    name?: string;
    tier?: 'read' | 'suggest' | 'owner';
    space_id?: string | null;
    persona?: string;
  } = {},
): Promise<TestAgent> {
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/agents',
    payload: {
      name: agent.name ?? `agent-${randomBytes(3).toString('hex')}`,
      tier: agent.tier ?? 'suggest',
      ...agent,
    },
  });
  if (created.statusCode !== 201) throw new Error(`creating an agent failed: ${created.body}`);
  const id = created.json().id as string;
  const minted = await ta.asOwner({ method: 'POST', url: '/api/agent-tokens', payload: { agent_id: id } });
  if (minted.statusCode !== 201) throw new Error(`minting a token failed: ${minted.body}`);
  return { id, token: minted.json().token, tokenId: minted.json().id };
}

/** Creates a space through the owner API. */
export async function createSpace(
  ta: TestApp,
  name = `space-${randomBytes(3).toString('hex')}`,
): Promise<{ id: string; name: string }> {
  const response = await ta.asOwner({ method: 'POST', url: '/api/spaces', payload: { name } });
  if (response.statusCode !== 201) throw new Error(`creating a space failed: ${response.body}`);
  return response.json();
}

/**
 * Another process of the same hub: an app of its own on `ta`'s database (and data directory), closed at teardown.
 * Its owner token, settings and logger may differ, as after a restart with a new configuration.
 */
export async function anotherProcess(
  t: Teardown,
  ta: TestApp,
  options: {
    ownerToken?: string;
    env?: Record<string, string>;
    logger?: FastifyServerOptions['logger'];
  } = {},
): Promise<FastifyInstance> {
  const token = options.ownerToken ?? ownerToken;
  const config = loadConfig({
    DATA_DIR: ta.dataDir,
    OWNER_TOKEN: token,
    LOG_LEVEL: 'silent',
    ...options.env,
  });
  const app = await buildApp({
    config,
    sql: ta.sql,
    databaseUrl: ta.db.url,
    ownerToken: token,
    worker: 'off',
    cron: false,
    logger: options.logger,
  });
  t.teardown(() => app.close());
  await app.ready();
  return app;
}
