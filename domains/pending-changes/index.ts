// The owner's review of agents' proposed changes: list (summaries), read, fetch a change's file, approve (applies
// it) and reject. At start, files no undecided change owns are removed (files.ts).
//
// Routes it registers (access in brackets):
//   GET    /api/pending-changes              [owner only]
//   GET    /api/pending-changes/:id          [owner only]
//   GET    /api/pending-changes/:id/file     [owner only]
//   POST   /api/pending-changes/:id/approve  [owner only]
//   POST   /api/pending-changes/:id/reject   [owner only]
import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { HubError, hubError } from '../../lib/errors.ts';
import { bodyOptional } from '../../lib/input.ts';
import { errors, IdParams } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly, type Principal } from '../../plugins/auth.ts';
import { errorBody } from '../../plugins/errors.ts';
import { proposedDiffs } from '../entities/versions.ts';
import { writeEnv } from '../entities/write.ts';
import { pendingFilePath, sweepPendingFiles } from './files.ts';
import { approveChange, rejectChange } from './governance.ts';
import {
  ApprovalFailure,
  ApproveChange,
  PendingChange,
  PendingChangeList,
  PendingChangeQuery,
  RejectChange,
} from './schema.ts';
import { pendingQuotaSetting } from './setting.ts';
import { findPendingChange, listPendingChanges } from './store.ts';
import { pendingChangeTools } from './tools.ts';

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

/** A file name safe inside a quoted Content-Disposition parameter, the full name in its UTF-8 form beside it. */
function attachment(name: string): string {
  const plain = name.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'upload';
  return `attachment; filename="${plain}"; filename*=UTF-8''${encodeURIComponent(name || 'upload')}`;
}

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(PendingChange);
  // Before the first request: nothing is being proposed yet. A failure is logged and the files wait for the next start.
  app.addHook('onReady', async () => {
    await sweepPendingFiles(app.sql, app.config.server.dataDir, app.log).catch((err: unknown) => {
      app.log.error({ err }, 'pending uploads: sweeping DATA_DIR/pending-uploads failed');
    });
  });

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
      if (change.action !== 'update' || !change.entity_id) return change;
      return {
        ...change,
        diff: await proposedDiffs(app.sql, change.entity_type, change.entity_id, change.payload),
      };
    },
  );

  app.get(
    '/pending-changes/:id/file',
    {
      schema: {
        tags,
        summary: "A pending change's file (an agent's upload), as a download",
        description:
          'Always sent as application/octet-stream with Content-Disposition: attachment and nosniff, whatever ' +
          'type the agent declared, so nothing an agent uploads is ever rendered by the browser as a page of the ' +
          'hub. 404 PENDING_CHANGE_NOT_FOUND when the change does not exist or carries no file (any more: the file ' +
          'goes once the change is applied or rejected).',
        params: IdParams,
        produces: ['application/octet-stream'],
        response: {
          200: Type.Unknown({ description: 'the bytes as the agent sent them' }),
          ...errors(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const change = await findPendingChange(app.sql, request.params.id);
      const open = change?.status === 'pending' || change?.status === 'applying';
      if (!change?.file || !open) {
        throw hubError('PENDING_CHANGE_NOT_FOUND', `${request.params.id} (with a file waiting for approval)`);
      }
      const stream = createReadStream(pendingFilePath(app.config.server.dataDir, change.id));
      // Opened before the headers go out, so a file gone from disk is a 404, not a broken download.
      await new Promise<void>((resolve, reject) => {
        stream.once('open', () => resolve());
        stream.once('error', reject);
      }).catch(() => {
        throw hubError('PENDING_FILE_MISSING', `the file of pending change ${change.id} is missing on disk`);
      });
      return reply
        .type('application/octet-stream')
        .header('content-length', change.file.size)
        .header('content-disposition', attachment(change.file.name))
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cache-control', 'private, no-store')
        .header('repr-digest', `sha-256=:${Buffer.from(change.file.sha256, 'hex').toString('base64')}:`)
        .send(stream);
    },
  );

  app.post(
    '/pending-changes/:id/approve',
    {
      // The body is optional: no body is an approval without force.
      preValidation: bodyOptional,
      schema: {
        tags,
        summary: 'Approve a pending change: it is claimed, then applied as if the owner had made it',
        description:
          'A change that fails to apply is reopened (pending, with the error) and the answer carries its status ' +
          '(400, 404, 409, 422) and the change. A change that is not pending is a 409: it is never applied twice. ' +
          'An update or delete whose target changed since it was proposed is 409 PENDING_CHANGE_STALE with both ' +
          'versions and, per field, what it was, what it is now and a diff of the text; { "force": true } applies ' +
          'it anyway.',
        params: IdParams,
        body: ApproveChange,
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
        writeEnv(app),
        { force: request.body.force },
      );
      if (approval.ok) return approval.change;
      const { statusCode, code, message, change, extra } = approval;
      if (!change || !isFailureCode(statusCode)) throw new HubError(code, message, extra);
      return reply
        .status(statusCode)
        .send({ ...errorBody(statusCode, code, message), ...extra, pending_change: change });
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
      rejectChange(app.sql, request.params.id, approver(request), request.body.reason ?? null, app.config),
  );
};

export default {
  name: 'pending-changes',
  routes: ownerOnly(plugin),
  settings: [pendingQuotaSetting],
  tools: pendingChangeTools,
} satisfies HubModule;
