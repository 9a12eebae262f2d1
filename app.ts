// buildApp: the whole HTTP service from its dependencies. main.ts and the tests both build it here.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TaskList } from 'graphile-worker';
import type { Sql } from 'postgres';
import type { Config } from './config.ts';
import actions from './domains/actions/index.ts';
import agents from './domains/agents/index.ts';
import { findTokenOwner } from './domains/agents/store.ts';
import aiUsage from './domains/ai-usage/index.ts';
import apps from './domains/apps/index.ts';
import assistant from './domains/assistant/index.ts';
import audit from './domains/audit/index.ts';
import backups from './domains/backups/index.ts';
import boards from './domains/boards/index.ts';
import capture from './domains/capture/index.ts';
import dashboard from './domains/dashboard/index.ts';
import devices from './domains/devices/index.ts';
import health from './domains/health/index.ts';
import host from './domains/host/index.ts';
import icons from './domains/icons/index.ts';
import jobRecords from './domains/jobs/index.ts';
import mcp from './domains/mcp/index.ts';
import metrics from './domains/metrics/index.ts';
import networkHosts from './domains/network-hosts/index.ts';
import pages from './domains/pages/index.ts';
import pendingChanges from './domains/pending-changes/index.ts';
import projects from './domains/projects/index.ts';
import proxmox from './domains/proxmox/index.ts';
import refs from './domains/refs/index.ts';
import resources from './domains/resources/index.ts';
import search from './domains/search/index.ts';
import sessions, { failureCounter } from './domains/sessions/index.ts';
import { findSession } from './domains/sessions/store.ts';
import settings from './domains/settings/index.ts';
import { readSetting } from './domains/settings/registry.ts';
import shlink from './domains/shlink/index.ts';
import sourceDocs from './domains/source-docs/index.ts';
import spaces from './domains/spaces/index.ts';
import speedtest from './domains/speedtest/index.ts';
import system from './domains/system/index.ts';
import tasks from './domains/tasks/index.ts';
import theme from './domains/theme/index.ts';
import { defaultPalette, themeSetting } from './domains/theme/setting.ts';
import voice from './domains/voice/index.ts';
import weather from './domains/weather/index.ts';
import { CardBus, cardChangesChannel } from './lib/card-bus.ts';
import { isDate, isDateTime, isWebUrl } from './lib/input.ts';
import { ownerTokenDigest } from './lib/secrets.ts';
import { version } from './lib/version.ts';
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
  /** Extra tasks next to the domains' (tests). */
  extraTasks?: TaskList;
  /** Run recurring work (default on; tests that drive it themselves turn it off). */
  cron?: boolean;
  /** The clock of time-dependent answers (backup staleness); tests pass their own. */
  now?: () => Date;
}

/** How often the server looks for connections past their time limits (Node's default is 30 s). */
export const connectionsCheckingIntervalMs = 1000;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    trustProxy: deps.config.trustProxy,
    bodyLimit: 2 * 1024 * 1024,
    forceCloseConnections: false,
    return503OnClosing: true,
    frameworkErrors: frameworkError,
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
    keepAliveTimeout: deps.config.httpKeepAliveTimeoutMs,
    requestTimeout: Math.max(deps.config.httpRequestTimeoutMs, deps.config.httpHeadersTimeoutMs),
    http: {
      headersTimeout: deps.config.httpHeadersTimeoutMs,
      requestTimeout: Math.max(deps.config.httpRequestTimeoutMs, deps.config.httpHeadersTimeoutMs),
      connectionsCheckingInterval: connectionsCheckingIntervalMs,
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  await app.register(errors);
  await app.register(input);
  await app.register(db, { sql: deps.sql, databaseUrl: deps.databaseUrl });
  // Sessions are bound to the owner token they were made with: a new OWNER_TOKEN ends the older ones.
  const ownerDigest = ownerTokenDigest(deps.ownerToken);
  await app.register(auth, {
    findTokenOwner: (hash) => findTokenOwner(deps.sql, hash),
    findSession: (hash) => findSession(deps.sql, hash, ownerDigest),
    ownerToken: deps.ownerToken,
    // The JWT and key-set libraries are loaded only when an access proxy is configured (README, "Resources").
    access: deps.config.access
      ? (await import('./lib/access-jwt.ts')).createAccessVerifier(deps.config.access)
      : null,
    agentRateLimitPerMinute: deps.config.agentRateLimitPerMinute,
    failures: failureCounter(deps.sql, deps.config.authFailureLimit),
  });
  await app.register(openapi, { version });
  await app.register(jobs, {
    mode: deps.worker ?? deps.config.workerMode,
    connectionString: deps.databaseUrl,
    concurrency: deps.config.workerConcurrency,
    taskList: buildTaskList({ sql: deps.sql, config: deps.config }, { extra: deps.extraTasks }),
    cron: deps.cron ?? true,
  });
  app.decorate('config', deps.config);
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

  await app.register(
    async (api) => {
      await api.register(system);
      await api.register(spaces);
      await api.register(settings);
      await api.register(theme);
      await api.register(agents);
      await api.register(capture);
      await api.register(jobRecords);
      await api.register(pages);
      await api.register(projects);
      await api.register(tasks);
      await api.register(refs);
      await api.register(sourceDocs);
      await api.register(resources);
      await api.register(networkHosts);
      await api.register(search);
      await api.register(pendingChanges);
      await api.register(audit);
      await api.register(mcp);
      await api.register(speedtest);
      await api.register(voice);
      await api.register(icons);
      await api.register(sessions, { ownerToken: deps.ownerToken, ownerDigest });
      await api.register(devices);
      await api.register(health);
      await api.register(metrics);
      const now = deps.now ?? (() => new Date());
      await api.register(dashboard);
      await api.register(weather, { now });
      await api.register(host);
      await api.register(proxmox, { now });
      await api.register(backups, { now });
      await api.register(shlink, { now });
      await api.register(assistant);
      await api.register(aiUsage);
      await api.register(actions);
      await api.register(apps);
      await api.register(boards);
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
