// Server, database and jobs (README, Configuration).
import path from 'node:path';
import { parseSecretKey } from '../lib/secrets.ts';
import { ConfigError, type Env, flag, integer, oneOf, secret, text } from './env.ts';

export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  logLevel: string;
  /** On shutdown, how long /api/healthz answers 503 before the server stops taking connections. */
  shutdownDrainMs: number;
  /** HUB_SECRET_KEY: the key of the secrets stored encrypted; null: the one kept in DATA_DIR/secret.key. */
  secretKey: Buffer | null;
}

export interface DatabaseConfig {
  /** null: start the embedded PostgreSQL under the data directory. */
  url: string | null;
  allowSuperuser: boolean;
}

export type WorkerMode = 'in-process' | 'separate';

export interface JobsConfig {
  workerMode: WorkerMode;
  concurrency: number;
  retentionHours: number;
}

/** Root runs the embedded database as the postgres user, which cannot reach a private home directory. */
export function defaultDataDir(): string {
  return process.getuid?.() === 0 ? '/var/lib/ops-hub' : path.resolve('data');
}

export function server(env: Env): ServerConfig {
  return {
    port: integer(env, 'PORT', 3000, 1, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? defaultDataDir()),
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 0, 0, 60_000),
    secretKey: secretKey(env),
  };
}

function secretKey(env: Env): Buffer | null {
  const raw = secret(env, 'HUB_SECRET_KEY');
  if (raw === null) return null;
  const key = parseSecretKey(raw);
  if (!key) {
    throw new ConfigError(
      'HUB_SECRET_KEY',
      'must be 32 bytes as base64 or hex (make one: openssl rand -base64 32)',
    );
  }
  return key;
}

function databaseUrl(env: Env): string | null {
  const raw = secret(env, 'DATABASE_URL');
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      'DATABASE_URL',
      'is not a valid URL (expected postgres://user:password@host:5432/database)',
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(
      'DATABASE_URL',
      `must start with postgres:// or postgresql:// (got "${url.protocol}")`,
    );
  }
  if (!url.hostname || url.pathname.length <= 1) {
    throw new ConfigError(
      'DATABASE_URL',
      'must name a host and a database (postgres://user:password@host:5432/database)',
    );
  }
  return raw;
}

export function database(env: Env): DatabaseConfig {
  return { url: databaseUrl(env), allowSuperuser: flag(env, 'DATABASE_ALLOW_SUPERUSER') };
}

export function jobs(env: Env): JobsConfig {
  return {
    // `off` names an API-only process among several: it runs no jobs, like `separate`, which it stands for.
    workerMode: ((mode) => (mode === 'off' ? 'separate' : mode))(
      oneOf(env, 'WORKER_MODE', ['in-process', 'separate', 'off'] as const, 'in-process'),
    ),
    concurrency: integer(env, 'WORKER_CONCURRENCY', 4, 1, 64),
    retentionHours: integer(env, 'JOBS_RETENTION_HOURS', 24 * 7, 1, 24 * 365),
  };
}

/** The database URL with its password masked (in the user part and in a `password` parameter), for logs. */
export function describeDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (/pass/i.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.toString();
}

/**
 * Where the hub records the URL of the embedded database it started, for a separate worker process. Mode 0600:
 * it holds the service role's password.
 */
export function runtimeFile(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}
