// GET /api/audit: the owner's record of approvals, rejections and owner-tier agents' direct writes.
//
// Routes it registers (access in brackets):
//   GET    /api/audit  [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly } from '../../plugins/auth.ts';
import { AuditEntry, AuditList, AuditQuery } from './schema.ts';
import { listAuditEntries } from './store.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(AuditEntry);

  app.get(
    '/audit',
    {
      schema: {
        tags: ['audit'],
        summary: 'The audit log, newest first, filtered by actor, action, outcome, entity or pending change',
        querystring: AuditQuery,
        response: { 200: AuditList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { actor, action, outcome, entity_type, entity_id, pending_change_id, limit, offset } =
        request.query;
      const page = await listAuditEntries(app.sql, {
        actor,
        action,
        outcome,
        entityType: entity_type,
        entityId: entity_id,
        pendingChangeId: pending_change_id,
        limit,
        offset,
      });
      return { ...page, limit, offset };
    },
  );
};

export default {
  name: 'audit',
  routes: ownerOnly(plugin),
} satisfies HubModule;
