// Source documents: what capture and ingestion brought in. Listed without their content, read one by one.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import { assertCanRead, performWrite, readScope } from '../entities/write.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import { CreateSourceDoc, SourceDoc, SourceDocList, SourceDocListQuery, UpdateSourceDoc } from './schema.ts';
import { findSourceDoc, listSourceDocs, type SourceDocOrigin } from './store.ts';

const tags = ['source-docs'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(SourceDoc);

  app.get(
    '/source-docs',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'List source documents (without content), most recently captured first',
        querystring: SourceDocListQuery,
        response: { 200: SourceDocList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { space_id, origin, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      const page = await listSourceDocs(app.sql, {
        spaceId,
        origin: origin as SourceDocOrigin | undefined,
        limit,
        offset,
      });
      return { ...page, limit, offset };
    },
  );

  app.get(
    '/source-docs/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Get a source document with its content',
        params: IdParams,
        response: { 200: Type.Ref('SourceDoc'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const doc = await findSourceDoc(app.sql, request.params.id);
      if (!doc) throw app.httpErrors.notFound('source document not found');
      assertCanRead(request, doc.space_id);
      return doc;
    },
  );

  app.post(
    '/source-docs',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Store a document directly (origin upload unless given); captures use /capture',
        body: CreateSourceDoc,
        response: { 201: Type.Ref('SourceDoc'), 202: PendingReceipt, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, { entity_type: 'source_doc', action: 'create', payload: request.body }),
  );

  app.patch(
    '/source-docs/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Change a source document',
        params: IdParams,
        body: UpdateSourceDoc,
        response: { 200: Type.Ref('SourceDoc'), 202: PendingReceipt, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, {
        entity_type: 'source_doc',
        action: 'update',
        entity_id: request.params.id,
        payload: request.body,
      }),
  );

  app.delete(
    '/source-docs/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Delete a source document',
        params: IdParams,
        response: { 204: NoContent, 202: PendingReceipt, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, {
        entity_type: 'source_doc',
        action: 'delete',
        entity_id: request.params.id,
      }),
  );
};

export default plugin;
