// The owner's writes to the registry: services added, replaced, changed and removed, push tokens renewed, checks
// and sweeps started, discovery's candidates promoted or dismissed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { hubError } from '../../lib/errors.ts';
import { bodyOptional } from '../../lib/input.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { assertIconRef } from '../icons/icon-ref.ts';
import {
  Accepted,
  CheckRequest,
  CreateService,
  discoverLanTask,
  healthCheckTask,
  PauseRequest,
  Promote,
  Service,
  UpdateService,
} from './schema.ts';
import {
  addService,
  changeService,
  found,
  newPushToken,
  pauseService,
  replaceService,
  resumeService,
} from './services.ts';
import { deleteService, dismissCandidate, promoteCandidate } from './store.ts';

const tags = ['health'];

export const writeRoutes: FastifyPluginAsyncTypebox = async (owner) => {
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
      const saved = await addService(owner.sql, owner.config.server, request.body);
      return reply.status(201).send(saved);
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
      return replaceService(owner.sql, owner.config.server, request.params.id, request.body);
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
      return changeService(owner.sql, owner.config.server, request.params.id, request.body);
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
      if (!(await deleteService(owner.sql, request.params.id))) {
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
      return newPushToken(owner.sql, request.params.id);
    },
  );

  owner.post(
    '/health/services/:id/pause',
    {
      preValidation: bodyOptional,
      schema: {
        tags,
        summary: 'Pause a service: no checks, state paused, no alerts, until it is resumed',
        description:
          'The reason is kept with the state change. A paused service counts neither up nor down for uptime, a ' +
          'paused push service refuses heartbeats (404), and status pages and badges show it paused (grey).',
        params: IdParams,
        body: PauseRequest,
        response: { 200: Service, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => pauseService(owner.sql, request.params.id, request.body.reason),
  );

  owner.post(
    '/health/services/:id/resume',
    {
      schema: {
        tags,
        summary: 'Resume a paused service: it is checked at once, then on its interval',
        params: IdParams,
        response: { 200: Service, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => resumeService(owner.sql, request.params.id),
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
      const job = await enqueue(owner.sql, healthCheckTask, ids ? { ids } : {});
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
      const job = await enqueue(owner.sql, discoverLanTask, {}, { jobKey: 'discover.lan' });
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
      await assertIconRef(owner.sql, request.body.icon);
      if (!(await promoteCandidate(owner.sql, request.params.id, request.body))) {
        throw hubError('CANDIDATE_NOT_FOUND', request.params.id);
      }
      return found(owner.sql, request.params.id);
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
      if (!(await owner.sql.begin((tx) => dismissCandidate(tx, request.params.id)))) {
        throw hubError('CANDIDATE_NOT_FOUND', request.params.id);
      }
      return reply.status(204).send(null);
    },
  );
};
