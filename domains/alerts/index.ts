// Alerts: targets (ntfy, Gotify, signed webhooks, apprise-api, e-mail, and ALERT_URL from the environment), rules
// routing events to them, and the deliveries each alert made. The owner's only.
//   GET    /api/alerts/targets            every target (the environment's first); secrets only as { set }
//   POST   /api/alerts/targets            add one
//   GET    /api/alerts/targets/:id
//   PATCH  /api/alerts/targets/:id        fields left out keep their values, secrets too; null clears
//   DELETE /api/alerts/targets/:id
//   POST   /api/alerts/targets/:id/test   sends a test alert now; answers what the upstream said
//   GET    /api/alerts/rules              every rule, the default one first
//   POST   /api/alerts/rules
//   GET    /api/alerts/rules/:id
//   PATCH  /api/alerts/rules/:id
//   DELETE /api/alerts/rules/:id
//   GET    /api/alerts/deliveries         what was sent where and what the target answered, newest first
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { alertCron, alertTasks, jobFailedAlert, outgoing } from './jobs.ts';
import {
  CreateRule,
  CreateTarget,
  Delivery,
  DeliveryList,
  DeliveryQuery,
  Rule,
  RuleList,
  Target,
  TargetList,
  TestAnswer,
  UpdateRule,
  UpdateTarget,
} from './schema.ts';
import { SendError, send } from './send.ts';
import { alertSettings } from './setting.ts';
import {
  absentTargets,
  deleteRuleRow,
  deleteTargetRow,
  findRuleRow,
  insertRuleRow,
  listDeliveries,
  listRuleRows,
  updateRuleRow,
} from './store.ts';
import {
  createTarget,
  environmentTargetId,
  getTarget,
  listTargets,
  openTarget,
  refuseEnvironment,
  updateTarget,
} from './targets.ts';

const tags = ['alerts'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Target);
  app.addSchema(Rule);
  app.addSchema(Delivery);
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
      refuseEnvironment(request.params.id);
      if (!(await deleteTargetRow(app.sql, request.params.id))) {
        throw hubError('ALERT_TARGET_NOT_FOUND', request.params.id);
      }
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
    async (request) => {
      const target = await openTarget(deps, request.params.id);
      if (!target) throw hubError('ALERT_TARGET_NOT_FOUND', request.params.id);
      const id = randomUUID();
      const test = await outgoing(app.sql, {
        id,
        status: 'queued',
        target_id: target.id === environmentTargetId ? null : target.id,
        target_name: target.name,
        target_kind: target.kind,
        alert: {
          id,
          event: 'alert.test',
          title: 'Test alert from ops-hub',
          message: `This is a test of the alert target **${target.name}**.`,
          priority: 3,
          tags: ['test_tube'],
          link: '/settings/alerts',
          data: {},
          actions: [],
          subject: null,
          resolves: false,
          suppressed: null,
          created_at: new Date(),
        },
      });
      try {
        const answer = await send(target, test, app.config.dashboard.upstreamTimeoutMs);
        return { ok: true, ...answer };
      } catch (error) {
        if (!(error instanceof SendError)) throw error;
        return { ok: false, status: error.status, answer: error.message };
      }
    },
  );

  const checkRuleTargets = async (ids: string[] | undefined) => {
    const absent = await absentTargets(
      app.sql,
      (ids ?? []).filter((id) => id !== environmentTargetId || !app.config.alerts.url),
    );
    if (absent.length > 0) throw hubError('ALERT_TARGET_NOT_FOUND', absent.join(', '));
  };
  const checkTimezone = (timezone: string | undefined) => {
    if (timezone && timezone !== 'UTC' && !Intl.supportedValuesOf('timeZone').includes(timezone)) {
      throw hubError(
        'VALIDATION_FAILED',
        `quiet_hours.timezone must be an IANA time zone such as Europe/Berlin`,
      );
    }
  };

  app.get(
    '/alerts/rules',
    {
      schema: {
        tags,
        summary: 'Every alert rule, oldest (the default one) first',
        response: { 200: RuleList, ...errors(401, 403) },
      },
    },
    async () => ({ items: await listRuleRows(app.sql) }),
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
    async (request, reply) => {
      await checkRuleTargets(request.body.targets);
      checkTimezone(request.body.quiet_hours?.timezone);
      return reply.status(201).send(await insertRuleRow(app.sql, request.body));
    },
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
    async (request) => {
      const rule = await findRuleRow(app.sql, request.params.id);
      if (!rule) throw hubError('ALERT_RULE_NOT_FOUND', request.params.id);
      return rule;
    },
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
    async (request) => {
      await checkRuleTargets(request.body.targets);
      checkTimezone(request.body.quiet_hours?.timezone);
      const rule = await updateRuleRow(app.sql, request.params.id, request.body);
      if (!rule) throw hubError('ALERT_RULE_NOT_FOUND', request.params.id);
      return rule;
    },
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
      if (!(await deleteRuleRow(app.sql, request.params.id))) {
        throw hubError('ALERT_RULE_NOT_FOUND', request.params.id);
      }
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/alerts/deliveries',
    {
      schema: {
        tags,
        summary: 'What was sent where and what each target answered, newest first',
        querystring: DeliveryQuery,
        response: { 200: DeliveryList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      return { ...(await listDeliveries(app.sql, request.query)), limit, offset };
    },
  );
};

export default {
  name: 'alerts',
  routes: plugin,
  tasks: alertTasks,
  cron: alertCron,
  settings: [alertSettings],
  onJobFailed: jobFailedAlert,
} satisfies HubModule;
