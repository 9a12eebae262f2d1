// POST /api/capture/upload: reads the multipart form (space_id, file, title) and hands the file to the write
// registry as an upload (entity.ts), so the owner stores it at once and a suggest-tier agent proposes it.
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import { writeAs } from '../entities/write.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import type { SourceDocRow } from '../source-docs/store.ts';
import { targetSpace } from './capture.ts';
import { type UploadedFile, uploadPayload } from './entity.ts';
import { UploadedDoc, UploadForm } from './schema.ts';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface ReceivedForm {
  spaceId: string;
  title: string | null;
  file: UploadedFile;
}

/** The form's fields in any order; the space is checked as soon as it is read, before the file is buffered. */
async function readForm(request: FastifyRequest): Promise<ReceivedForm> {
  let spaceId: string | null = null;
  let title: string | null = null;
  let file: UploadedFile | null = null;
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') throw hubError('BAD_REQUEST', 'the file field is named "file"');
      // Throws the 413 when the file passes the limit; nothing has been stored.
      const bytes = await part.toBuffer();
      file = { bytes, filename: part.filename, mimetype: part.mimetype };
    } else if (part.fieldname === 'space_id') {
      const value = String(part.value).trim();
      if (!uuidPattern.test(value)) throw hubError('BAD_REQUEST', 'space_id must be a UUID');
      await targetSpace(request.server.sql, request.principal, value);
      spaceId = value;
    } else if (part.fieldname === 'title') {
      title = String(part.value).trim().slice(0, 500) || null;
    } else {
      throw hubError('BAD_REQUEST', `unknown field "${part.fieldname}" (space_id, file, title)`);
    }
  }
  if (spaceId === null) throw hubError('BAD_REQUEST', 'space_id is required');
  if (file === null) throw hubError('BAD_REQUEST', 'file is required');
  return { spaceId, title, file };
}

const uploadRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config;
  await app.register(multipart, {
    limits: { fileSize: config.uploadMaxBytes, files: 1, fields: 5, fieldSize: 1024, parts: 6 },
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
          `are refused with 415; at most UPLOAD_MAX_BYTES, now ${config.uploadMaxBytes} bytes) and optionally ` +
          'title. The file becomes a searchable source document of origin "upload" at once (its text cut at ' +
          `DOCUMENT_MAX_CHARS, now ${config.documentMaxChars}, the metadata saying so). A suggest-tier agent ` +
          "gets 202 with pending_change_id: the file is kept with the proposal and stored on the owner's approval.",
        requestBody: { 'multipart/form-data': UploadForm },
        response: {
          201: UploadedDoc,
          202: PendingReceipt,
          ...errors(400, 401, 403, 404, 413, 415, 422, 429),
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
      const form = await readForm(request);
      if (form.file.bytes.length === 0) throw hubError('BAD_REQUEST', 'the file is empty');
      const outcome = await writeAs(
        app.sql,
        principal,
        {
          entity_type: 'upload',
          action: 'create',
          payload: uploadPayload(form.file, form.spaceId, form.title),
        },
        null,
        config,
      );
      if (outcome.status === 'pending') {
        return reply.status(202).send({ pending_change_id: outcome.pending_change_id, status: 'pending' });
      }
      return reply.status(201).send(outcome.result.entity as SourceDocRow);
    },
  );
};

export default uploadRoutes;
