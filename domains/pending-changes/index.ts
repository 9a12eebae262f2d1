// The owner's review of agents' proposed changes: list, read, approve (applies it) and reject.
//
// Routes it registers (access in brackets):
//   GET    /api/pending-changes              [owner only]
//   GET    /api/pending-changes/:id          [owner only]
//   POST   /api/pending-changes/:id/approve  [owner only]
//   POST   /api/pending-changes/:id/reject   [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { HubError, hubError } from '../../lib/errors.ts';
import { errors, IdParams } from '../../lib/schemas.ts';
import { ownerOnly, type Principal } from '../../plugins/auth.ts';
import { errorBody } from '../../plugins/errors.ts';
import { approveChange, rejectChange } from './governance.ts';
import {
  ApprovalFailure,
  PendingChange,
  PendingChangeList,
  PendingChangeQuery,
  RejectChange,
} from './schema.ts';
import { findPendingChange, listPendingChanges } from './store.ts';

const tags = ['pending-changes'];

/** Failed approvals answered with the change; anything else (a 5xx) goes through the error handler. */
const failureCodes = [400, 404, 409, 422] as const;
type FailureCode = (typeof failureCodes)[number];
function isFailureCode(code: number): code is FailureCode {
  return (failureCodes as readonly number[]).includes(code);
}

/** The principal the owner hook let through. */
function approver(request: FastifyRequest): Principal {
  if (!request.principal) throw hubError('UNAUTHORIZED');
  return request.principal;
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(PendingChange);

  app.get(
    '/pending-changes',
    {
      schema: {
        tags,
        summary:
          'List changes proposed by agents, newest first, filtered by status, agent, entity type or action',
        querystring: PendingChangeQuery,
        response: { 200: PendingChangeList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { status, agent_id, entity_type, action, limit, offset } = request.query;
      const page = await listPendingChanges(app.sql, {
        status,
        agentId: agent_id,
        entityType: entity_type,
        action,
        limit,
        offset,
      });
      return { ...page, limit, offset };
    },
  );

  app.get(
    '/pending-changes/:id',
    {
      schema: {
        tags,
        summary: 'Get a pending change',
        params: IdParams,
        response: { 200: Type.Ref('PendingChange'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const change = await findPendingChange(app.sql, request.params.id);
      if (!change) throw hubError('PENDING_CHANGE_NOT_FOUND');
      return change;
    },
  );

  app.post(
    '/pending-changes/:id/approve',
    {
      schema: {
        tags,
        summary: 'Approve a pending change: it is claimed, then applied as if the owner had made it',
        description:
          'A change that fails to apply is reopened (pending, with the error) and the answer carries its status ' +
          '(400, 404, 409, 422) and the change. A change that is not pending is a 409: it is never applied twice.',
        params: IdParams,
        response: {
          200: Type.Ref('PendingChange'),
          ...errors(401, 403),
          400: ApprovalFailure,
          404: ApprovalFailure,
          409: ApprovalFailure,
          422: ApprovalFailure,
        },
      },
    },
    async (request, reply) => {
      const approval = await approveChange(
        app.sql,
        request.params.id,
        approver(request),
        request.log,
        app.config,
      );
      if (approval.ok) return approval.change;
      const { statusCode, code, message, change } = approval;
      if (!change || !isFailureCode(statusCode)) throw new HubError(code, message);
      return reply
        .status(statusCode)
        .send({ ...errorBody(statusCode, code, message), pending_change: change });
    },
  );

  app.post(
    '/pending-changes/:id/reject',
    {
      // The body is optional: no body is a rejection without a reason.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary: 'Reject a pending change, with an optional reason',
        params: IdParams,
        body: RejectChange,
        response: { 200: Type.Ref('PendingChange'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      rejectChange(app.sql, request.params.id, approver(request), request.body.reason ?? null),
  );
};

export default ownerOnly(plugin);
