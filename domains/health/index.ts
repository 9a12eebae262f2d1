// The service health registry and LAN discovery. Reads are for agents and the owner; every write is the owner's.
//   GET    /api/health/services                 the registry grouped by category, cached status merged in
//   GET    /api/health/services/:id
//   GET    /api/health/services/:id/history     checks since ?since=, uptime over 24 h, 7 d and 30 d
//   GET    /api/health/events                   state changes, newest first
//   GET    /api/health/discovered               discovery candidates, with the matching device's name
//   POST   /api/health/services                 add (201); a target already monitored is 409
//   PUT    /api/health/services/:id             replace the definition
//   PATCH  /api/health/services/:id             change some fields
//   DELETE /api/health/services/:id
//   POST   /api/health/check                    enqueues health.check for every enabled service or { ids } (202)
//   POST   /api/health/discover                 enqueues discover.lan (202)
//   POST   /api/health/discovered/:id/promote   makes a candidate a curated, enabled service
//   DELETE /api/health/discovered/:id           dismisses a candidate; later sweeps do not propose it again
//   POST   /api/health/services/:id/push-token  a push service's new heartbeat token (the old one stops working)
//   GET|POST /api/push/:token                   a heartbeat, Uptime Kuma's shape (public: the token is the credential)
//   GET|POST /api/ping/:token[/start|/fail|/:code]  a heartbeat, healthchecks.io's shape (public, push-routes.ts)
// Reads are in read-routes.ts, the owner's writes in write-routes.ts.
// The dashboard's service health card gets the enabled services grouped by category, as GET /api/health/services
// answers them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { sealedCredentials, sealStoredPasswords } from './credentials.ts';
import { healthCron, healthTasks } from './jobs.ts';
import { heartbeatRoutes, KumaRefusal, PingAnswer } from './push-routes.ts';
import { readRoutes } from './read-routes.ts';
import { CreateService, discoverLanTask, healthCheckTask, Service, UpdateService } from './schema.ts';
import { serviceGroups } from './services.ts';
import { healthRetentionSetting } from './setting.ts';
import { healthTools } from './tools.ts';
import { writeRoutes } from './write-routes.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Service);
  app.addSchema(CreateService);
  app.addSchema(UpdateService);
  app.addSchema(KumaRefusal);
  app.addSchema(PingAnswer);
  // Check passwords and headers stored before they were sealed at rest are sealed once, at start (a no-op afterwards).
  // When the database cannot be reached then, the next round of checks that meets one does it.
  app.addHook('onReady', async () => {
    try {
      const sealed = await sealStoredPasswords(app.sql, app.config.server);
      if (sealed > 0)
        app.log.info(`sealed ${sealed} health check password(s) or header set(s) stored in plaintext`);
    } catch (error) {
      app.log.warn(
        `stored health check passwords and headers not sealed at start: ${(error as Error).message}`,
      );
    }
  });
  await app.register(heartbeatRoutes);
  app.cards.addSource({
    type: 'health',
    intervalMs: 60_000,
    read: () => serviceGroups(app.sql, { include_disabled: false }),
  });

  await app.register(agentAccess(readRoutes));
  await app.register(ownerOnly(writeRoutes));
};

export default {
  name: 'health',
  routes: plugin,
  tasks: healthTasks,
  cron: healthCron,
  settings: [healthRetentionSetting],
  tools: healthTools,
  actions: [{ task: healthCheckTask }, { task: discoverLanTask }],
  sealed: sealedCredentials,
} satisfies HubModule;
