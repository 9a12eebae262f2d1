// Capture and ingestion routes:
//   GET  /api/captures         the capture inbox: captured URLs and uploads, newest first (agent or owner; a scoped
//                              agent sees its space only)
//   PATCH /api/captures/:id    marks an entry read or unread (owner; read-state.ts)
//   POST /api/capture          a URL becomes an ingest.url or ingest.video job (agent or owner)
//   POST /api/capture/upload   a file becomes a source document (agent or owner; upload.ts)
//   POST /api/ingest/:service  the bookmark webhook, public under its own secret check (ingest.ts)
// A suggest-tier agent's capture or upload becomes a pending change the owner's approval performs; an owner-tier
// agent's is applied at once and audited (entity.ts, through the write registry). linkding is pulled, not pushed
// (linkding.ts, a recurring job).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly, publicAccess } from '../../plugins/auth.ts';
import { readScope, writeAs, writeEnv } from '../entities/write.ts';
import { acceptedBody } from './accept.ts';
import { captureHandler, captureResultOf, uploadHandler } from './entity.ts';
import ingestRoutes from './ingest.ts';
import { captureTasks } from './jobs.ts';
import { linkdingCron } from './linkding.ts';
import { presentInboxRow } from './present.ts';
import readStateRoutes from './read-state.ts';
import { checkCaptureUrlResolved } from './routing.ts';
import { Capture, CaptureAccepted, CaptureBody, CaptureList, CaptureListQuery } from './schema.ts';
import { listInbox } from './store.ts';
import uploadRoutes from './upload.ts';

const tags = ['capture'];

const captureRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config;
  // The guarded client's pools are closed by the jobs plugin, after the worker has stopped (plugins/jobs.ts).

  app.get(
    '/captures',
    {
      schema: {
        tags,
        summary: 'List captures and uploads, newest first',
        description:
          'Each captured URL (from the API, the bookmark webhook or the linkding pull) with its state and error, and ' +
          'each uploaded file (completed at once); document_id is the source document it produced. Filter by state, ' +
          'space_id and unread (read_at null); unread counts the unread entries the other filters match. A failed capture runs again with POST /api/jobs/:job_id/retry (it is queued again). An ' +
          "agent scoped to one space sees that space's only (another space_id is 404).",
        querystring: CaptureListQuery,
        response: { 200: CaptureList, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { state, space_id, unread, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      const page = await listInbox(app.sql, { state, spaceId, unread, limit, offset });
      return {
        items: page.items.map(presentInboxRow),
        total: page.total,
        unread: page.unread,
        limit,
        offset,
      };
    },
  );

  app.post(
    '/capture',
    {
      schema: {
        tags,
        summary: 'Capture a URL',
        description:
          'Queues ingest.video for youtube.com, www.youtube.com, m.youtube.com and youtu.be URLs and ingest.url ' +
          'for any other http(s) URL; the job stores the page as a searchable source document. A URL whose ' +
          "address, or whose host name's addresses, the guard refuses is a 400 URL_REFUSED. The same " +
          'idempotency_key again in the same space returns the first capture (duplicate: true) and queues ' +
          'nothing; with another URL it is a 409 IDEMPOTENCY_KEY_REUSED (keys are unique per space). A ' +
          'suggest-tier agent gets 202 with pending_change_id: the ' +
          "owner's approval performs the capture.",
        body: CaptureBody,
        response: {
          202: Type.Union([Type.Ref('CaptureAccepted'), Type.Ref('PendingReceipt')]),
          ...errors(400, 401, 403, 404, 409, 429),
        },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (!principal) throw hubError('UNAUTHORIZED');
      // Checked here with DNS, so a name and the address it stands for get the same answer before anything waits.
      await checkCaptureUrlResolved(request.body.url, config);
      const outcome = await writeAs(app.sql, writeEnv(app), principal, {
        entity_type: 'capture',
        action: 'create',
        payload: request.body,
      });
      if (outcome.status === 'pending') {
        return reply.status(202).send({ pending_change_id: outcome.pending_change_id, status: 'pending' });
      }
      return reply.status(202).send(acceptedBody(captureResultOf(outcome.result.entity)));
    },
  );
};

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(CaptureAccepted);
  app.addSchema(Capture);
  await app.register(agentAccess(captureRoutes));
  await app.register(agentAccess(uploadRoutes));
  await app.register(ownerOnly(readStateRoutes));
  await app.register(publicAccess(ingestRoutes));
};

export default {
  name: 'capture',
  routes: plugin,
  tasks: captureTasks,
  cron: linkdingCron,
  entities: { capture: captureHandler, upload: uploadHandler },
} satisfies HubModule;
