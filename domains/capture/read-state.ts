// The inbox's read state, the owner's alone:
//   PATCH /api/captures/:id   { read } marks a capture (and the document it produced) or an upload read or unread
// Opening a document in the app marks it read through PATCH /api/source-docs/:id; this is the inbox's own switch.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import { presentInboxRow } from './present.ts';
import { CaptureParams, CaptureReadBody } from './schema.ts';
import { findInboxEntry, markInboxEntry } from './store.ts';

const readStateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.patch(
    '/captures/:id',
    {
      schema: {
        tags: ['capture'],
        summary: 'Mark an inbox entry read or unread',
        description:
          'The id is an entry of GET /api/captures: a capture (its document, once it has one, is marked too) or ' +
          'an upload.',
        params: CaptureParams,
        body: CaptureReadBody,
        response: { 200: Type.Ref('Capture'), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const entry = await app.sql.begin(async (tx) => {
        if (!(await markInboxEntry(tx, id, request.body.read))) throw hubError('CAPTURE_NOT_FOUND', id);
        return findInboxEntry(tx, id);
      });
      if (!entry) throw hubError('CAPTURE_NOT_FOUND', id);
      return presentInboxRow(entry);
    },
  );
};

export default readStateRoutes;
