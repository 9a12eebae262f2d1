// The ops timeline: one record of what happened across the hub (service states, devices, backups, approvals, edits,
// jobs ...), written by each domain through record.ts as it happens.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HubModule } from '../../module.ts';

const plugin: FastifyPluginAsyncTypebox = async () => {};

export default {
  name: 'timeline',
  routes: plugin,
} satisfies HubModule;
