// POST /api/capture/upload: reads the multipart form (space_id, file, title), streaming the file to disk (never
// whole in memory), and hands it to the write registry as an upload (entity.ts), so the owner stores it at once and
// a suggest-tier agent proposes it (the file then waits on disk with the pending change).
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { hubError } from '../../lib/errors.ts';
import { discardFile, type ReceivedFile, readForm } from '../../lib/incoming.ts';
import { errors, uuidPattern } from '../../lib/schemas.ts';
import { writeAs, writeEnv } from '../entities/write.ts';
import { assertProposalRoom } from '../pending-changes/governance.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import type { SourceDocRow } from '../source-docs/documents.ts';
import { targetSpace } from './accept.ts';
import { UploadedDoc, UploadForm } from './schema.ts';

interface ReceivedForm {
  spaceId: string;
  title: string | null;
  file: ReceivedFile;
}

/**
 * The form's fields in any order (lib/incoming.ts's reader); the space is checked as soon as it is read, the file
 * streamed to disk as it arrives (a 413 at the first byte over UPLOAD_MAX_BYTES). Whatever fails, a file already
 * received is removed.
 */
async function readUpload(request: FastifyRequest): Promise<ReceivedForm> {
  const { config } = request.server;
  const { fields, file } = await readForm(request.parts(), {
    dataDir: config.server.dataDir,
    maxBytes: config.capture.uploadMaxBytes,
    limitName: 'UPLOAD_MAX_BYTES',
    fields: ['space_id', 'title'],
    onField: async (name, value) => {
      if (name !== 'space_id') return;
      if (!uuidPattern.test(value)) throw hubError('BAD_REQUEST', 'space_id must be a UUID');
      await targetSpace(request.server.sql, request.principal, value);
    },
  });
  if (fields.space_id === undefined) {
    await discardFile(file);
    throw hubError('BAD_REQUEST', 'space_id is required');
  }
  return { spaceId: fields.space_id, title: fields.title?.slice(0, 500) || null, file };
}

const uploadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config;
  await app.register(multipart, {
    limits: { fileSize: config.capture.uploadMaxBytes, files: 1, fields: 5, fieldSize: 1024, parts: 6 },
  });

  app.post(
    '/capture/upload',
    {
      schema: {
        tags: ['capture'],
        summary: 'Upload a document',
        description:
          'multipart/form-data with the fields space_id (a UUID of an existing space, checked before anything ' +
          'is stored), file (text, Markdown, HTML or PDF; the type is checked against the content; others ' +
          `are refused with 415; at most UPLOAD_MAX_BYTES, now ${config.capture.uploadMaxBytes} bytes) and optionally ` +
          'title. The file becomes a searchable source document of origin "upload" at once (its text cut at ' +
          `DOCUMENT_MAX_CHARS, now ${config.capture.documentMaxChars}, the metadata saying so). The file is streamed to ` +
          'disk as it arrives, never held whole in memory. A suggest-tier agent gets 202 with pending_change_id: ' +
          'the file waits on disk with the proposal (its type checked by its first bytes; its text is extracted ' +
          "on the owner's approval), within the agent's quota (setting pending_quota; 429 PENDING_QUOTA beyond).",
        requestBody: { 'multipart/form-data': UploadForm },
        response: {
          201: UploadedDoc,
          202: PendingReceipt,
          ...errors(400, 401, 403, 404, 409, 413, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const principal = request.principal;
      if (!principal) throw hubError('UNAUTHORIZED');
      if (!request.isMultipart()) {
        throw hubError(
          'UNSUPPORTED_MEDIA_TYPE',
          'send multipart/form-data with the fields space_id and file',
        );
      }
      // Refused before a byte of the file is read: an agent with no room left for a proposal.
      if (principal.kind === 'agent' && principal.tier === 'suggest') {
        await assertProposalRoom(app.sql, principal, 0);
      }
      const form = await readUpload(request);
      try {
        if (form.file.size === 0) throw hubError('BAD_REQUEST', 'the file is empty');
        const outcome = await writeAs(app.sql, writeEnv(app), principal, {
          entity_type: 'upload',
          action: 'create',
          payload: { space_id: form.spaceId, ...(form.title === null ? {} : { title: form.title }) },
          file: form.file,
        });
        if (outcome.status === 'pending') {
          return reply.status(202).send({ pending_change_id: outcome.pending_change_id, status: 'pending' });
        }
        return reply.status(201).send(outcome.result.entity as SourceDocRow);
      } finally {
        // Stored as a document or moved to the pending change by now; anything left is not needed.
        await discardFile(form.file);
      }
    },
  );
};

export default uploadRoutes;
