// Source documents: what capture and ingestion brought in. Listed without their content, read one by one.
//
// Routes it registers (access in brackets; get, create, update and delete of an entity come from
// entityRoutes in domains/entities/routes.ts):
//   GET    /api/source-docs      [agent or owner]
//   GET    /api/source-docs/:id  [agent or owner]
//   POST   /api/source-docs      [agent or owner]
//   PATCH  /api/source-docs/:id  [agent or owner]
//   DELETE /api/source-docs/:id  [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { entityRoutes, readableBy } from '../entities/routes.ts';
import { readScope } from '../entities/write.ts';
import { sourceDocHandler } from './entity.ts';
import { CreateSourceDoc, SourceDoc, SourceDocList, SourceDocListQuery, UpdateSourceDoc } from './schema.ts';
import { findSourceDoc, listSourceDocs, type SourceDocOrigin } from './store.ts';
import { sourceDocTools } from './tools.ts';

const tags = ['source-docs'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(SourceDoc);

  app.get(
    '/source-docs',
    {
      schema: {
        tags,
        summary: 'List source documents (without content), most recently captured first',
        querystring: SourceDocListQuery,
        response: { 200: SourceDocList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { space_id, origin, tag, unread, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      const page = await listSourceDocs(app.sql, {
        spaceId,
        origin: origin as SourceDocOrigin | undefined,
        tag,
        unread,
        limit,
        offset,
      });
      return { ...page, limit, offset };
    },
  );

  entityRoutes(app, {
    entity_type: 'source_doc',
    path: '/source-docs',
    tags,
    entity: Type.Ref('SourceDoc'),
    read: readableBy('source document', (id) => findSourceDoc(app.sql, id)),
    body: { create: CreateSourceDoc, update: UpdateSourceDoc },
    summary: {
      get: 'Get a source document with its content',
      create: 'Store a document directly (origin upload unless given); captures use /capture',
      update: 'Change a source document',
      delete: 'Delete a source document',
    },
  });
};

export default {
  name: 'source-docs',
  routes: agentAccess(plugin),
  entities: { source_doc: sourceDocHandler },
  tools: sourceDocTools,
} satisfies HubModule;
