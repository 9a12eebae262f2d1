// Pages: Markdown documents in a space, arranged as a tree with explicit sibling positions.
//
// Routes it registers (access in brackets; get, create, update and delete of an entity come from
// entityRoutes in domains/entities/routes.ts):
//   GET    /api/pages             [agent or owner]
//   GET    /api/spaces/:id/pages  [agent or owner]
//   GET    /api/pages/:id         [agent or owner]
//   GET    /api/pages/:id/backlinks [agent or owner]
//   POST   /api/pages             [agent or owner]
//   PATCH  /api/pages/:id         [agent or owner]
//   DELETE /api/pages/:id         [agent or owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, IdParams } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { entityRoutes, readableBy } from '../entities/routes.ts';
import { assertSpaceReadable, readScope } from '../entities/write.ts';
import { pageHandler } from './entity.ts';
import {
  CreatePage,
  Page,
  PageBacklinks,
  PageList,
  PageListQuery,
  SpacePages,
  SpacePagesQuery,
  UpdatePage,
} from './schema.ts';
import { findPage, listPages, pagesLinkingTo, spacePageSummaries } from './store.ts';
import { pageTools } from './tools.ts';
import { buildTree, flatten } from './tree.ts';

const tags = ['pages'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Page);

  app.get(
    '/pages',
    {
      schema: {
        tags,
        summary: 'List pages, filtered by space, parent or tag',
        querystring: PageListQuery,
        response: { 200: PageList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { space_id, parent_id, tag, limit, offset } = request.query;
      const spaceId = readScope(request, space_id);
      const { items, total } = await listPages(app.sql, { spaceId, parentId: parent_id, tag, limit, offset });
      return { items, total, limit, offset };
    },
  );

  app.get(
    '/spaces/:id/pages',
    {
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

  const readPage = readableBy('page', (id) => findPage(app.sql, id));

  app.get(
    '/pages/:id/backlinks',
    {
      schema: {
        tags,
        summary: 'The pages of its space linking to a page with [[its title]]',
        params: IdParams,
        response: { 200: PageBacklinks, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const page = await readPage(request, request.params.id);
      return { items: await pagesLinkingTo(app.sql, page.space_id, page.title, page.id) };
    },
  );

  entityRoutes(app, {
    entity_type: 'page',
    path: '/pages',
    tags,
    entity: Page,
    read: readPage,
    body: { create: CreatePage, update: UpdatePage },
    summary: {
      get: 'Get a page',
      create: 'Create a page (last among its siblings unless a position is given)',
      update: 'Edit, move (parent_id) or reorder (position) a page',
      delete: 'Delete a page and its subpages to the trash',
    },
  });
};

export default {
  name: 'pages',
  routes: agentAccess(plugin),
  entities: { page: pageHandler },
  tools: pageTools,
} satisfies HubModule;
