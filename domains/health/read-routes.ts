// What agents and the owner may read of the registry: services grouped or one by one, a service's checks and
// uptime, state changes, and discovery's candidates.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams } from '../../lib/schemas.ts';
import {
  CandidateList,
  EventList,
  EventQuery,
  History,
  HistoryQuery,
  ServiceGroups,
  ServiceGroupsQuery,
} from './schema.ts';
import { found, presentCandidate, serviceGroups } from './services.ts';
import { checkHistory, listCandidates, listEvents } from './store.ts';

const tags = ['health'];

export const readRoutes: FastifyPluginAsyncTypebox = async (agents) => {
  agents.get(
    '/health/services',
    {
      schema: {
        tags,
        summary: 'Monitored services grouped by category, with their cached status',
        description:
          'Each group counts its enabled services (`total`) and those up (`healthy`). Discovered candidates are ' +
          'listed at /api/health/discovered instead.',
        querystring: ServiceGroupsQuery,
        response: { 200: ServiceGroups, ...errors(400, 401, 403) },
      },
    },
    async (request) => serviceGroups(agents.sql, request.query),
  );

  agents.get(
    '/health/services/:id',
    {
      schema: {
        tags,
        summary: 'Get a monitored service',
        params: IdParams,
        // By reference: the schema object itself as a response stops a later Ref('Service') of this context
        // from resolving (the serializer of /health/discovered).
        response: { 200: Type.Ref('Service'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => found(agents.sql, request.params.id),
  );

  agents.get(
    '/health/services/:id/history',
    {
      schema: {
        tags,
        summary: 'Checks of a service and its uptime over 24 hours, 7 days and 30 days',
        description: 'Results are kept for the health.retention_days setting (90 days by default).',
        params: IdParams,
        querystring: HistoryQuery,
        response: { 200: History, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await found(agents.sql, request.params.id);
      const since = request.query.since ? new Date(request.query.since) : null;
      const history = await checkHistory(agents.sql, request.params.id, since, request.query);
      return { service_id: request.params.id, ...history };
    },
  );

  agents.get(
    '/health/events',
    {
      schema: {
        tags,
        summary: 'State changes of monitored services, newest first',
        querystring: EventQuery,
        response: { 200: EventList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset, service_id } = request.query;
      const page = await listEvents(agents.sql, { serviceId: service_id, limit, offset });
      return { ...page, limit, offset };
    },
  );

  agents.get(
    '/health/discovered',
    {
      schema: {
        tags,
        summary: 'Candidates found by LAN discovery',
        description:
          'Stored disabled and marked discovered. `device_name` is the known LAN device at the address, where one is.',
        response: { 200: CandidateList, ...errors(401, 403) },
      },
    },
    async () => {
      const rows = await listCandidates(agents.sql);
      return { items: rows.map(presentCandidate), total: rows.length };
    },
  );
};
