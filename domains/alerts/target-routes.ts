// The alert targets' routes (owner): list, add, read, change, remove, and send a test alert.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import { CreateTarget, TargetList, TestAnswer, UpdateTarget } from './schema.ts';
import { createTarget, deleteTarget, getTarget, listTargets, updateTarget } from './targets.ts';
import { sendTestAlert } from './test-alert.ts';

const tags = ['alerts'];

export const targetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = { sql: app.sql, config: app.config };

  app.get(
    '/alerts/targets',
    {
      schema: {
        tags,
        summary: 'Every alert target; secrets only as { set }',
        response: { 200: TargetList, ...errors(401, 403) },
      },
    },
    async () => ({ items: await listTargets(deps) }),
  );

  app.post(
    '/alerts/targets',
    {
      schema: {
        tags,
        summary: 'Add an alert target',
        description:
          'Kinds: ntfy (url, topic, token), gotify (url, token), webhook (url, secret: Standard Webhooks signing), ' +
          'apprise (url of apprise-api, urls or key), email (SMTP host, port, tls, user, password, from, to).',
        body: CreateTarget,
        response: { 201: Type.Ref('AlertTarget'), ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => reply.status(201).send(await createTarget(deps, request.body)),
  );

  app.get(
    '/alerts/targets/:id',
    {
      schema: {
        tags,
        summary: 'Get an alert target',
        params: IdParams,
        response: { 200: Type.Ref('AlertTarget'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => getTarget(deps, request.params.id),
  );

  app.patch(
    '/alerts/targets/:id',
    {
      schema: {
        tags,
        summary: 'Change an alert target (its kind stays)',
        description: 'The environment target (ALERT_URL) is 409 SET_BY_ENVIRONMENT.',
        params: IdParams,
        body: UpdateTarget,
        response: { 200: Type.Ref('AlertTarget'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => updateTarget(deps, request.params.id, request.body),
  );

  app.delete(
    '/alerts/targets/:id',
    {
      schema: {
        tags,
        summary: 'Remove an alert target (its deliveries stay, naming it)',
        description: 'A rule left with no target by this is disabled rather than turned into "every target".',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await deleteTarget(deps, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/alerts/targets/:id/test',
    {
      schema: {
        tags,
        summary: 'Send a test alert to a target now',
        description:
          "Answers the upstream's status and answer (ok: false when it refused or did not answer); nothing is " +
          'recorded as a delivery.',
        params: IdParams,
        response: { 200: TestAnswer, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => sendTestAlert(deps, request.params.id),
  );
};
