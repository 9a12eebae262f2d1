// Prometheus metrics for the home lab's Prometheus and Grafana.
//   GET /api/metrics   text exposition format; the owner's bearer token or METRICS_TOKEN
// Registered as public so a scraper with only METRICS_TOKEN gets through the access check; this route checks itself.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import { constantTimeEqual } from '../../lib/secrets.ts';
import { publicAccess } from '../../plugins/auth.ts';
import { metricsSnapshot } from './store.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  // One registry per app (tests build several in one process), with Node's process metrics.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const serviceUp = new Gauge({
    name: 'hub_service_up',
    help: 'Whether a monitored service passed its last check (1), failed it (0); absent until checked',
    labelNames: ['name', 'category'] as const,
    registers: [registry],
  });
  const serviceLatency = new Gauge({
    name: 'hub_service_latency_seconds',
    help: 'Response time of the last passing check of a monitored service',
    labelNames: ['name', 'category'] as const,
    registers: [registry],
  });
  const devices = new Gauge({
    name: 'hub_devices',
    help: 'LAN devices by review status and presence',
    labelNames: ['status', 'present'] as const,
    registers: [registry],
  });
  const jobs = new Gauge({
    name: 'hub_jobs',
    help: 'Background jobs on record by task and state',
    labelNames: ['task', 'state'] as const,
    registers: [registry],
  });
  const metricsToken = app.config.metricsToken;

  await app.register(
    publicAccess(async (open) => {
      open.get(
        '/metrics',
        {
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
          serviceUp.reset();
          serviceLatency.reset();
          devices.reset();
          jobs.reset();
          for (const service of snapshot.services) {
            const labels = { name: service.name, category: service.category };
            if (service.state === 'up' || service.state === 'down')
              serviceUp.set(labels, service.state === 'up' ? 1 : 0);
            if (service.state === 'up' && service.latency_ms !== null)
              serviceLatency.set(labels, service.latency_ms / 1000);
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

export default plugin;
