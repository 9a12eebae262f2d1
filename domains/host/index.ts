// The host card: CPU, load, memory, swap, disks, network rates, uptime and temperatures of the machine the hub runs
// on (or, with HOST_PROC and HOST_SYS, the host a container is given).
//   GET /api/host   the latest figures; ?mounts=/,/srv limits the disks to some of HOST_MOUNTS
// Its host.check task (thresholds.ts) alerts when a figure stays over its threshold.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { hubError } from '../../lib/errors.ts';
import { CardBody, errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { HostSampler } from './sampler.ts';
import { HostQuery } from './schema.ts';
import { hostCron, hostTasks } from './thresholds.ts';

const tags = ['dashboard'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  const { host } = app.config.dashboard;
  const sampler = new HostSampler({
    ...host,
    intervalMs: host.sampleSeconds * 1000,
    idleMs: Math.max(60_000, host.sampleSeconds * 3000),
    firstSpanMs: 250,
    watching: () => app.cards.watching,
    onFigures: (figures) => app.cards.publish('host', figures),
  });
  app.addHook('onClose', async () => sampler.close());
  // The stream's own source only wakes the sampler; the sampler publishes each sample itself.
  app.cards.addSource({
    type: 'host',
    intervalMs: host.sampleSeconds * 1000,
    read: () => sampler.read(),
  });

  const texts = new WeakMap<object, string>();

  async function figures() {
    try {
      return await sampler.read();
    } catch {
      throw hubError(
        'HOST_METRICS_UNAVAILABLE',
        'cannot read the host figures under HOST_PROC (is it a proc filesystem?)',
      );
    }
  }

  app.get(
    '/host',
    {
      schema: {
        tags,
        summary: 'Host card: CPU, memory, disks, network, uptime, temperatures',
        description:
          'CPU % over the last sampling interval (two /proc/stat samples), memory used = total − available, disk ' +
          'use of each HOST_MOUNTS path, network rates from /proc/net/dev deltas (loopback left out). Sampling runs ' +
          'every HOST_SAMPLE_SECONDS while someone reads.',
        querystring: HostQuery,
        response: { 200: CardBody, ...errors(400, 401, 502) },
      },
    },
    async (request, reply) => {
      const result = await figures();
      if (!request.query.mounts) {
        // One sample is read many times: serialised once.
        let text = texts.get(result);
        if (text === undefined) {
          text = JSON.stringify(result);
          texts.set(result, text);
        }
        return reply.type('application/json; charset=utf-8').send(text);
      }
      const wanted = request.query.mounts.split(',').map((mount) => mount.trim());
      const unknown = wanted.find((mount) => !host.mounts.includes(mount));
      if (unknown !== undefined) {
        throw hubError(
          'BAD_REQUEST',
          `mounts: "${unknown}" is not one of HOST_MOUNTS (${host.mounts.join(', ')})`,
        );
      }
      return { ...result, disks: result.disks.filter((disk) => wanted.includes(disk.mount)) };
    },
  );
};

export default {
  name: 'host',
  routes: agentAccess(plugin),
  tasks: hostTasks,
  cron: hostCron,
} satisfies HubModule;
