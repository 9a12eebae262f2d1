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
// The dashboard's service health card gets the enabled services grouped by category, as GET /api/health/services
// answers them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { bodyOptional } from '../../lib/input.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { assertIconRef } from '../icons/icon-ref.ts';
import { sealStoredPasswords } from './credentials.ts';
import { checkDefinition } from './definition.ts';
import { healthCron, healthTasks } from './jobs.ts';
import { renewPushToken } from './push.ts';
import { heartbeatRoutes } from './push-routes.ts';
import {
  Accepted,
  CandidateList,
  CheckRequest,
  CreateService,
  discoverLanTask,
  EventList,
  EventQuery,
  History,
  HistoryQuery,
  healthCheckTask,
  Promote,
  Service,
  ServiceGroups,
  ServiceGroupsQuery,
  UpdateService,
} from './schema.ts';
import { definitionFields, found, presentCandidate, save, serviceGroups } from './services.ts';
import { healthRetentionSetting } from './setting.ts';
import {
  checkHistory,
  deleteService,
  dismissCandidate,
  listCandidates,
  listEvents,
  lockService,
  promoteCandidate,
} from './store.ts';
import { healthTools } from './tools.ts';

const tags = ['health'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Service);
  // Check passwords stored before they were sealed at rest are sealed once, at start (a no-op afterwards).
  // When the database cannot be reached then, the next round of checks that meets one does it.
  app.addHook('onReady', async () => {
    try {
      const sealed = await sealStoredPasswords(app.sql, app.config.server);
      if (sealed > 0) app.log.info(`sealed ${sealed} health check password(s) stored in plaintext`);
    } catch (error) {
      app.log.warn(`stored health check passwords not sealed at start: ${(error as Error).message}`);
    }
  });
  await app.register(heartbeatRoutes);
  app.cards.addSource({
    type: 'health',
    intervalMs: 60_000,
    read: () => serviceGroups(app.sql, { include_disabled: false }),
  });

  await app.register(
    agentAccess(async (agents) => {
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
        async (request) => serviceGroups(app.sql, request.query),
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
        async (request) => found(app.sql, request.params.id),
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
          await found(app.sql, request.params.id);
          const since = request.query.since ? new Date(request.query.since) : null;
          const history = await checkHistory(app.sql, request.params.id, since, request.query);
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
          const page = await listEvents(app.sql, { serviceId: service_id, limit, offset });
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
          const rows = await listCandidates(app.sql);
          return { items: rows.map(presentCandidate), total: rows.length };
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.post(
        '/health/services',
        {
          schema: {
            tags,
            summary: 'Add a monitored service',
            body: CreateService,
            response: { 201: Service, ...errors(400, 401, 403, 409) },
          },
        },
        async (request, reply) => {
          const checked = checkDefinition(request.body);
          await assertIconRef(app.sql, request.body.icon);
          const saved = await app.sql.begin((tx) => save(tx, app.config.server, null, checked));
          return reply
            .status(201)
            .send({ ...(await found(app.sql, saved.id)), push_token: saved.push_token });
        },
      );

      owner.put(
        '/health/services/:id',
        {
          schema: {
            tags,
            summary: 'Replace a monitored service (fields not sent take their defaults)',
            params: IdParams,
            body: CreateService,
            response: { 200: Service, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => {
          // A replacement: credentials (in url or basic_auth) and headers not sent are removed.
          await assertIconRef(app.sql, request.body.icon);
          const saved = await app.sql.begin(async (tx) => {
            const current = await lockService(tx, request.params.id);
            if (!current || current.discovered) throw hubError('SERVICE_NOT_FOUND', request.params.id);
            const { definition, credentials, headers } = checkDefinition(request.body, null, current.target);
            return save(tx, app.config.server, request.params.id, {
              definition,
              credentials: credentials ?? null,
              headers: headers ?? null,
            });
          });
          return { ...(await found(app.sql, request.params.id)), push_token: saved.push_token };
        },
      );

      owner.patch(
        '/health/services/:id',
        {
          schema: {
            tags,
            summary: 'Change some fields of a monitored service',
            params: IdParams,
            body: UpdateService,
            response: { 200: Service, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => {
          await assertIconRef(app.sql, request.body.icon);
          const saved = await app.sql.begin(async (tx) => {
            const current = await lockService(tx, request.params.id);
            if (!current || current.discovered) throw hubError('SERVICE_NOT_FOUND', request.params.id);
            const merged = { ...definitionFields(current), ...request.body };
            return save(
              tx,
              app.config.server,
              request.params.id,
              checkDefinition(merged, current.url, current.target),
            );
          });
          return { ...(await found(app.sql, request.params.id)), push_token: saved.push_token };
        },
      );

      owner.delete(
        '/health/services/:id',
        {
          schema: {
            tags,
            summary: 'Remove a monitored service with its history',
            params: IdParams,
            response: { 204: NoContent, ...errors(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          if (!(await deleteService(app.sql, request.params.id))) {
            throw hubError('SERVICE_NOT_FOUND', request.params.id);
          }
          return reply.status(204).send(null);
        },
      );

      owner.post(
        '/health/services/:id/push-token',
        {
          schema: {
            tags,
            summary: 'Give a push service a new heartbeat token (the old one stops working)',
            description: 'The answer is the service with `push_token`, the one time it is shown.',
            params: IdParams,
            response: { 200: Service, ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) => {
          const token = await app.sql.begin(async (tx) => {
            const current = await lockService(tx, request.params.id);
            if (!current || current.discovered) throw hubError('SERVICE_NOT_FOUND', request.params.id);
            if (current.kind !== 'push') throw hubError('SERVICE_NOT_PUSH', request.params.id);
            return renewPushToken(tx, request.params.id);
          });
          return { ...(await found(app.sql, request.params.id)), push_token: token };
        },
      );

      owner.post(
        '/health/check',
        {
          preValidation: bodyOptional,
          schema: {
            tags,
            summary: 'Check every enabled service (or those named) now',
            body: CheckRequest,
            response: { 202: Accepted, ...errors(400, 401, 403) },
          },
        },
        async (request, reply) => {
          const ids = request.body.ids;
          const job = await enqueue(app.sql, healthCheckTask, ids ? { ids } : {});
          return reply.status(202).send({ job_id: job.id, task: 'health.check' });
        },
      );

      owner.post(
        '/health/discover',
        {
          schema: {
            tags,
            summary: 'Sweep the LAN for services now',
            description: 'Enqueues discover.lan over DISCOVERY_CIDRS on DISCOVERY_PORTS.',
            response: { 202: Accepted, ...errors(401, 403) },
          },
        },
        async (_request, reply) => {
          const job = await enqueue(app.sql, discoverLanTask, {}, { jobKey: 'discover.lan' });
          return reply.status(202).send({ job_id: job.id, task: 'discover.lan' });
        },
      );

      owner.post(
        '/health/discovered/:id/promote',
        {
          preValidation: bodyOptional,
          schema: {
            tags,
            summary: 'Make a candidate a curated, enabled service',
            params: IdParams,
            body: Promote,
            response: { 200: Service, ...errors(400, 401, 403, 404) },
          },
        },
        async (request) => {
          await assertIconRef(app.sql, request.body.icon);
          if (!(await promoteCandidate(app.sql, request.params.id, request.body))) {
            throw hubError('CANDIDATE_NOT_FOUND', request.params.id);
          }
          return found(app.sql, request.params.id);
        },
      );

      owner.delete(
        '/health/discovered/:id',
        {
          schema: {
            tags,
            summary: 'Dismiss a candidate: later sweeps do not propose it again',
            params: IdParams,
            response: { 204: NoContent, ...errors(400, 401, 403, 404) },
          },
        },
        async (request, reply) => {
          if (!(await app.sql.begin((tx) => dismissCandidate(tx, request.params.id)))) {
            throw hubError('CANDIDATE_NOT_FOUND', request.params.id);
          }
          return reply.status(204).send(null);
        },
      );
    }),
  );
};

export default {
  name: 'health',
  routes: plugin,
  tasks: healthTasks,
  cron: healthCron,
  settings: [healthRetentionSetting],
  tools: healthTools,
  actions: [{ task: healthCheckTask }, { task: discoverLanTask }],
} satisfies HubModule;
