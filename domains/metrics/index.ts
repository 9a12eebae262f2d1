// Prometheus metrics for the home lab's Prometheus and Grafana.
//   GET /api/metrics   text exposition format; the owner's bearer token or METRICS_TOKEN
// Registered as public so a scraper with only METRICS_TOKEN gets through the access check; this route checks itself.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { lazy } from '../../lib/lazy.ts';
import { errors } from '../../lib/schemas.ts';
import { constantTimeEqual } from '../../lib/secrets.ts';
import type { HubModule } from '../../module.ts';
import { publicAccess } from '../../plugins/auth.ts';
import { metricsSnapshot } from './store.ts';

/** One registry per app (tests build several in one process), with Node's process metrics and the hub's gauges. */
async function createRegistry() {
  const { collectDefaultMetrics, Gauge, Registry } = await import('prom-client');
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const gauge = (name: string, help: string, labelNames: readonly string[]) =>
    new Gauge({ name, help, labelNames, registers: [registry] });
  return {
    registry,
    serviceUp: gauge(
      'hub_service_up',
      'Whether a monitored service passed its last check (1), failed it (0); absent until checked',
      ['name', 'category'],
    ),
    serviceLatency: gauge(
      'hub_service_latency_seconds',
      'Response time of the last passing check of a monitored service',
      ['name', 'category'],
    ),
    devices: gauge('hub_devices', 'LAN devices by review status and presence', ['status', 'present']),
    jobs: gauge('hub_jobs', 'Background jobs on record by task and state', ['task', 'state']),
  };
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  // Made at the first scrape: a hub nobody scrapes never loads the metrics library.
  const metrics = lazy(createRegistry);
  const metricsToken = app.config.health.metricsToken;

  await app.register(
    publicAccess(async (open) => {
      open.get(
        '/metrics',
        {
          config: { checksSecret: true },
          schema: {
            tags: ['metrics'],
            summary: 'Prometheus metrics',
            description:
              'Service states and latencies, device counts, job counts by state and process metrics, in the ' +
              'Prometheus text format. Send the owner token or METRICS_TOKEN as a bearer token.',
            produces: ['text/plain'],
            response: { 200: Type.String(), ...errors(401, 403) },
          },
        },
        async (request, reply) => {
          const header = request.headers.authorization ?? '';
          const token = /^Bearer[ ]+(\S+)\s*$/i.exec(header)?.[1];
          const byToken =
            metricsToken !== null && token !== undefined && constantTimeEqual(token, metricsToken);
          if (!byToken && request.principal?.kind !== 'owner') {
            if (request.principal?.kind === 'agent') throw hubError('OWNER_ONLY');
            throw hubError('UNAUTHORIZED', token ? 'invalid credentials' : 'authentication required');
          }
          const snapshot = await metricsSnapshot(app.sql);
          const { registry, serviceUp, serviceLatency, devices, jobs } = await metrics();
          serviceUp.reset();
          serviceLatency.reset();
          devices.reset();
          jobs.reset();
          for (const service of snapshot.services) {
            const labels = { name: service.name, category: service.category };
            // Degraded (slow) and warning (a certificate expiring soon) passed their check: up.
            const up = ['up', 'degraded', 'warning'].includes(service.state);
            if (up || service.state === 'down') serviceUp.set(labels, up ? 1 : 0);
            if (up && service.latency_ms !== null) serviceLatency.set(labels, service.latency_ms / 1000);
          }
          for (const row of snapshot.devices)
            devices.set({ status: row.status, present: String(row.present) }, row.count);
          for (const row of snapshot.jobs) jobs.set({ task: row.task, state: row.state }, row.count);
          return reply.type(registry.contentType).send(await registry.metrics());
        },
      );
    }),
  );
};

export default {
  name: 'metrics',
  routes: plugin,
} satisfies HubModule;
