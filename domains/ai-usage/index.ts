// AI usage: what the assistant's turns and other tools spent. Routes:
//   POST /api/ai-usage/records    an owner or agent reports a use (agents: their own id is recorded)
//   GET  /api/ai-usage            tokens today and this week, the top model, local models' latency and errors
// The dashboard's AI usage card gets the summary in the hub's time zone.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { recordUsage } from './record.ts';
import { UsageRecord, UsageRecordInput, UsageSummary, UsageSummaryQuery } from './schema.ts';
import { localModels, perModel, totals } from './store.ts';

const tags = ['ai usage'];

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  async function summary(zone: string) {
    const [sums, models, local] = await Promise.all([
      totals(app.sql, zone),
      perModel(app.sql),
      localModels(app.sql),
    ]);
    return {
      time_zone: zone,
      ...sums,
      top_model: models[0]?.model ?? null,
      local: {
        requests: local.requests,
        p50_latency_ms: local.p50,
        p95_latency_ms: local.p95,
        error_rate: local.error_rate,
      },
      models,
    };
  }
  const hubZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

  app.cards.addSource({ type: 'ai-usage', intervalMs: 60_000, read: () => summary(hubZone()) });

  app.post(
    '/ai-usage/records',
    {
      schema: {
        tags,
        summary: 'Report a model use',
        description:
          'Owner or agent token. Usage is telemetry, not content: a suggest-tier agent’s report is recorded ' +
          'directly (read tier: 403).',
        body: UsageRecordInput,
        response: { 201: UsageRecord, ...errors(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      const agentId = principal?.kind === 'agent' ? principal.agentId : null;
      return reply.status(201).send(await recordUsage(app.sql, { ...request.body, agent_id: agentId }));
    },
  );

  app.get(
    '/ai-usage',
    {
      schema: {
        tags,
        summary: 'AI usage summary (the dashboard’s AI usage card)',
        querystring: UsageSummaryQuery,
        response: { 200: UsageSummary, ...errors(400, 401) },
      },
    },
    async (request) => {
      const zone = request.query.tz ?? hubZone();
      if (!validTimeZone(zone)) throw hubError('BAD_REQUEST', `tz: "${zone}" is not an IANA time zone`);
      return summary(zone);
    },
  );
};

export default {
  name: 'ai-usage',
  routes: agentAccess(plugin),
} satisfies HubModule;
