// The alert rules' routes (owner): list, add, read, change, remove.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import { createRule, deleteRule, getRule, listRules, updateRule } from './rules.ts';
import { CreateRule, RuleList, UpdateRule } from './schema.ts';

const tags = ['alerts'];

export const ruleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = { sql: app.sql, config: app.config };

  app.get(
    '/alerts/rules',
    {
      schema: {
        tags,
        summary: 'Every alert rule, oldest (the default one) first',
        response: { 200: RuleList, ...errors(401, 403) },
      },
    },
    async () => ({ items: await listRules(deps) }),
  );

  app.post(
    '/alerts/rules',
    {
      schema: {
        tags,
        summary: 'Add an alert rule',
        description:
          'Events are dotted names matched with * (service.*, device.new, *); the filter narrows by service, ' +
          'category and priority; an empty targets list is every target.',
        body: CreateRule,
        response: { 201: Type.Ref('AlertRule'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => reply.status(201).send(await createRule(deps, request.body)),
  );

  app.get(
    '/alerts/rules/:id',
    {
      schema: {
        tags,
        summary: 'Get an alert rule',
        params: IdParams,
        response: { 200: Type.Ref('AlertRule'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => getRule(deps, request.params.id),
  );

  app.patch(
    '/alerts/rules/:id',
    {
      schema: {
        tags,
        summary: 'Change an alert rule',
        params: IdParams,
        body: UpdateRule,
        response: { 200: Type.Ref('AlertRule'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => updateRule(deps, request.params.id, request.body),
  );

  app.delete(
    '/alerts/rules/:id',
    {
      schema: {
        tags,
        summary: 'Remove an alert rule',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteRule(deps, request.params.id);
      return reply.status(204).send(null);
    },
  );
};
