// Alerts: targets (ntfy, Gotify, signed webhooks, apprise-api, e-mail, and ALERT_URL from the environment), rules
// routing events to them, and the deliveries each alert made. The owner's only.
//   GET    /api/alerts/targets            every target (the environment's first); secrets only as { set }
//   POST   /api/alerts/targets            add one
//   GET    /api/alerts/targets/:id
//   PATCH  /api/alerts/targets/:id        fields left out keep their values, secrets too; null clears
//   DELETE /api/alerts/targets/:id
//   POST   /api/alerts/targets/:id/test   sends a test alert now; answers what the upstream said
//   GET    /api/alerts/rules              every rule, the default one first
//   POST   /api/alerts/rules
//   GET    /api/alerts/rules/:id
//   PATCH  /api/alerts/rules/:id
//   DELETE /api/alerts/rules/:id
//   GET    /api/alerts/deliveries         what was sent where and what the target answered, newest first
// The routes are in target-routes.ts, rule-routes.ts and delivery-routes.ts; job.failed is raised through the
// module's onJobFailed (jobs.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HubModule } from '../../module.ts';
import { deliveryRoutes } from './delivery-routes.ts';
import { alertCron, alertTasks, jobFailedAlert } from './jobs.ts';
import { ruleRoutes } from './rule-routes.ts';
import { Delivery, Rule, Target } from './schema.ts';
import { alertSettings } from './setting.ts';
import { targetRoutes } from './target-routes.ts';
import { sealedTargets } from './targets.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Target);
  app.addSchema(Rule);
  app.addSchema(Delivery);
  await app.register(targetRoutes);
  await app.register(ruleRoutes);
  await app.register(deliveryRoutes);
};

export default {
  name: 'alerts',
  routes: plugin,
  tasks: alertTasks,
  cron: alertCron,
  settings: [alertSettings],
  onJobFailed: jobFailedAlert,
  sealed: [sealedTargets],
} satisfies HubModule;
