// Pages: Markdown documents in a space, arranged as a tree with explicit sibling positions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import { assertCanRead, assertSpaceReadable, performWrite, readScope } from '../entities/write.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import {
  CreatePage,
  Page,
  PageList,
  PageListQuery,
  SpacePages,
  SpacePagesQuery,
  UpdatePage,
} from './schema.ts';
import { findPage, listPages, spacePageSummaries } from './store.ts';
import { buildTree, flatten } from './tree.ts';

const tags = ['pages'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Page);

  app.get(
    '/pages',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'List pages, filtered by space or parent',
        querystring: PageListQuery,
        response: { 200: PageList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { space_id, parent_id, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      const { items, total } = await listPages(app.sql, { spaceId, parentId: parent_id, limit, offset });
      return { items, total, limit, offset };
    },
  );

  app.get(
    '/spaces/:id/pages',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Pages of a space in tree order (position, then title); nested with tree=true',
        params: IdParams,
        querystring: SpacePagesQuery,
        response: { 200: SpacePages, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, offset, tree } = request.query;
      await assertSpaceReadable(request, request.params.id);
      const roots = buildTree(await spacePageSummaries(app.sql, request.params.id));
      const all = tree ? roots : flatten(roots);
      return { items: all.slice(offset, offset + limit), total: all.length, limit, offset };
    },
  );

  app.get(
    '/pages/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Get a page',
        params: IdParams,
        response: { 200: Page, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const page = await findPage(app.sql, request.params.id);
      if (!page) throw app.httpErrors.notFound('page not found');
      assertCanRead(request, page.space_id);
      return page;
    },
  );

  app.post(
    '/pages',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Create a page (last among its siblings unless a position is given)',
        body: CreatePage,
        response: { 201: Page, 202: PendingReceipt, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, { entity_type: 'page', action: 'create', payload: request.body }),
  );

  app.patch(
    '/pages/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Edit, move (parent_id) or reorder (position) a page',
        params: IdParams,
        body: UpdatePage,
        response: { 200: Page, 202: PendingReceipt, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, {
        entity_type: 'page',
        action: 'update',
        entity_id: request.params.id,
        payload: request.body,
      }),
  );

  app.delete(
    '/pages/:id',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Delete a page and its subpages',
        params: IdParams,
        response: { 204: NoContent, 202: PendingReceipt, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      performWrite(request, reply, { entity_type: 'page', action: 'delete', entity_id: request.params.id }),
  );
};

export default plugin;
