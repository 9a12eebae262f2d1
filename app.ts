// buildApp: the whole HTTP service from its dependencies. main.ts and the tests both build it here.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TaskList } from 'graphile-worker';
import type { Sql } from 'postgres';
import type { Config } from './config/index.ts';
import { findTokenOwner } from './domains/agents/credentials.ts';
import { CardBus, cardChangesChannel } from './domains/dashboard/card-bus.ts';
import { failureCounter, findSession, rateCounter } from './domains/sessions/credentials.ts';
import { readSetting } from './domains/settings/registry.ts';
import { defaultPalette, themeSetting } from './domains/theme/setting.ts';
import { isDate, isDateTime, isWebUrl } from './lib/input.ts';
import { type SchemaCompileTime, schemaCompilers } from './lib/schema-compilers.ts';
import { ownerTokenDigest, secretLogPaths } from './lib/secrets.ts';
import { version } from './lib/version.ts';
import { hub, modules } from './modules.ts';
import auth from './plugins/auth.ts';
import db from './plugins/db.ts';
import errors, { describeError, frameworkError } from './plugins/errors.ts';
import input from './plugins/input.ts';
import jobs from './plugins/jobs.ts';
import openapi from './plugins/openapi.ts';
import web from './plugins/web.ts';
import { buildTaskList } from './worker/tasks.ts';

export interface AppDeps {
  config: Config;
  sql: Sql;
  /** The connection string the worker uses (graphile-worker keeps its own pool). */
  databaseUrl: string;
  ownerToken: string;
  logger?: FastifyServerOptions['logger'];
  /** Overrides config.workerMode: tests that only enqueue turn the worker off. */
  worker?: 'in-process' | 'separate' | 'off';
  /** Extra tasks next to the modules' (tests). */
  extraTasks?: TaskList;
  /** Run recurring work (default on; tests that drive it themselves turn it off). */
  cron?: boolean;
  /** The clock of time-dependent answers (backup staleness); tests pass their own. */
  now?: () => Date;
  /** When route schemas are compiled (default: on each route's first use; a test compiles them all at build). */
  compileSchemas?: SchemaCompileTime;
}

/** How often the server looks for connections past their time limits (Node's default is 30 s). */
export const connectionsCheckingIntervalMs = 1000;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    // Secrets never reach the log, whatever object carries them (README, "Integrations").
    logger:
      deps.logger && typeof deps.logger === 'object' && !('child' in deps.logger)
        ? { ...deps.logger, redact: { paths: secretLogPaths, censor: '[redacted]' } }
        : (deps.logger ?? false),
    trustProxy: deps.config.http.trustProxy,
    bodyLimit: 2 * 1024 * 1024,
    forceCloseConnections: false,
    return503OnClosing: true,
    frameworkErrors: frameworkError,
    schemaController: { compilersFactory: schemaCompilers(deps.compileSchemas) },
    ajv: {
      customOptions: { removeAdditional: false, allErrors: false },
      // After ajv-formats: dates a Date can hold (no leap second) and stored links (http or https only), as TypeBox's
      // checks have them (lib/schemas.ts).
      onCreate: (ajv) => {
        ajv.addFormat('date-time', isDateTime);
        ajv.addFormat('date', isDate);
        ajv.addFormat('web-url', isWebUrl);
      },
    },
    // A silent or trickling client is cut off (README, "Time limits"): idle keep-alive connections, headers and
    // whole requests each have a limit, checked every second rather than Node's default 30 s.
    keepAliveTimeout: deps.config.http.keepAliveTimeoutMs,
    requestTimeout: Math.max(deps.config.http.requestTimeoutMs, deps.config.http.headersTimeoutMs),
    http: {
      headersTimeout: deps.config.http.headersTimeoutMs,
      requestTimeout: Math.max(deps.config.http.requestTimeoutMs, deps.config.http.headersTimeoutMs),
      connectionsCheckingInterval: connectionsCheckingIntervalMs,
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(errors);
  await app.register(input);
  await app.register(db, { sql: deps.sql, databaseUrl: deps.databaseUrl });
  // Sessions are bound to the owner token they were made with: a new OWNER_TOKEN ends the older ones.
  const ownerDigest = ownerTokenDigest(deps.ownerToken);
  ownerDigest.catch(() => undefined);
  await app.register(auth, {
    findTokenOwner: (hash) => findTokenOwner(deps.sql, hash),
    findSession: async (hash) => findSession(deps.sql, hash, await ownerDigest),
    ownerToken: deps.ownerToken,
    // The JWT and key-set libraries are loaded only when an access proxy is configured (README, "Resources").
    access: deps.config.access.proxy
      ? (await import('./lib/access-jwt.ts')).createAccessVerifier(deps.config.access.proxy)
      : null,
    agentRateLimitPerMinute: deps.config.access.agentRateLimitPerMinute,
    failures: failureCounter(deps.sql, deps.config.access.authFailureLimit),
    rates: rateCounter(deps.sql),
  });
  await app.register(openapi, { version });
  const jobDeps = { sql: deps.sql, config: deps.config };
  await app.register(jobs, {
    mode: deps.worker ?? deps.config.jobs.workerMode,
    connectionString: deps.databaseUrl,
    concurrency: deps.config.jobs.concurrency,
    taskList: buildTaskList(jobDeps, {
      tasks: hub.tasks,
      cron: hub.cron(jobDeps),
      extra: deps.extraTasks,
      onFailed: hub.onJobFailed,
    }),
    cron: deps.cron ?? true,
  });
  app.decorate('config', deps.config);
  app.decorate('hub', hub);
  // Live dashboard card data: the card domains feed it, the dashboard stream reads it; the database announces
  // card data written elsewhere (the worker's jobs) on its channel.
  app.decorate(
    'cards',
    new CardBus(
      (error) => describeError(error),
      async (onChange) => (await deps.sql.listen(cardChangesChannel, onChange)).unlisten,
    ),
  );
  app.addHook('onClose', async () => app.cards.stop());

  const moduleOptions = {
    now: deps.now ?? (() => new Date()),
    ownerToken: deps.ownerToken,
    ownerDigest: await ownerDigest,
  };
  await app.register(
    async (api) => {
      for (const module of modules) await api.register(module.routes, moduleOptions);
    },
    { prefix: '/api' },
  );
  await app.register(web, {
    palette: async () => ({ ...defaultPalette, ...(await readSetting(deps.sql, themeSetting)) }),
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    cards: CardBus;
  }
}
