// Actions: the tasks the modules offer as runnable actions (health.check, speedtest.run, devices.scan, discover.lan
// ...) run by name. Routes:
//   POST /api/actions/run            owner: enqueued now (202 with the job); agent: a pending action (202)
//   GET  /api/actions/pending        owner: the proposals waiting
//   POST /api/actions/:id/approve    owner: enqueue it, exactly once
//   POST /api/actions/:id/reject     owner: refuse it, with an optional reason
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly, type Principal } from '../../plugins/auth.ts';
import { actionNames, approveAction, rejectAction, runAction } from './run.ts';
import { ActionProposed, ActionStarted, PendingAction, RejectBody, RunAction } from './schema.ts';
import { listPendingActions } from './store.ts';
import { actionTools } from './tools.ts';

const tags = ['actions'];

const routes: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(PendingAction);

  await app.register(
    agentAccess(async (agents) => {
      agents.post(
        '/actions/run',
        {
          schema: {
            tags,
            summary: 'Run an action',
            description:
              `Actions: ${actionNames(app.hub.actions).join(', ')}; params are the task's payload. The owner's run is enqueued at ` +
              'once; an agent’s becomes a pending action for the owner to approve.',
            body: RunAction,
            response: { 202: Type.Union([ActionStarted, ActionProposed]), ...errors(400, 401, 403, 429) },
          },
        },
        async (request, reply) => {
          const outcome = await runAction(
            app.sql,
            app.hub.actions,
            request.principal as Principal,
            request.body,
            { config: app.config },
          );
          if (outcome.started)
            return reply.status(202).send({ job_id: outcome.job_id, task: outcome.task, status: 'queued' });
          return reply.status(202).send({ action_id: outcome.action.id, status: 'pending' });
        },
      );
    }),
  );

  await app.register(
    ownerOnly(async (owner) => {
      owner.get(
        '/actions/pending',
        {
          schema: {
            tags,
            summary: 'Actions agents proposed, oldest first',
            response: {
              200: Type.Object({ items: Type.Array(Type.Ref('PendingAction')) }),
              ...errors(401, 403),
            },
          },
        },
        async () => ({ items: await listPendingActions(app.sql) }),
      );

      owner.post(
        '/actions/:id/approve',
        {
          schema: {
            tags,
            summary: 'Approve a pending action: its task is enqueued, exactly once',
            params: IdParams,
            response: { 200: Type.Ref('PendingAction'), ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) =>
          approveAction(
            app.sql,
            app.hub.actions,
            request.params.id,
            request.principal as Principal,
            app.config.server,
          ),
      );

      owner.post(
        '/actions/:id/reject',
        {
          schema: {
            tags,
            summary: 'Reject a pending action',
            params: IdParams,
            body: Type.Union([RejectBody, Type.Null()]),
            response: { 200: Type.Ref('PendingAction'), ...errors(400, 401, 403, 404, 409) },
          },
        },
        async (request) =>
          rejectAction(
            app.sql,
            request.params.id,
            request.principal as Principal,
            request.body?.reason ?? null,
          ),
      );
    }),
  );
};

export default {
  name: 'actions',
  routes,
  tools: actionTools,
} satisfies HubModule;
