// The owner's status pages: made, listed, read, changed and deleted.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, NoContent } from '../../lib/schemas.ts';
import { changePage, createPage, pageOf } from './pages.ts';
import { CreateStatusPage, SlugParams, StatusPage, StatusPageList, UpdateStatusPage } from './schema.ts';
import { deletePage, listPages } from './store.ts';

const tags = ['status pages'];

export const pageRoutes: FastifyPluginAsyncTypebox = async (owner) => {
  owner.post(
    '/status-pages',
    {
      schema: {
        tags,
        summary: 'Make a status page',
        body: CreateStatusPage,
        response: { 201: StatusPage, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      return reply.status(201).send(await createPage(owner.sql, request.body));
    },
  );

  owner.get(
    '/status-pages',
    {
      schema: {
        tags,
        summary: 'Every status page',
        response: { 200: StatusPageList, ...errors(401, 403) },
      },
    },
    async () => {
      const items = await listPages(owner.sql);
      return { items, total: items.length };
    },
  );

  owner.get(
    '/status-pages/:slug',
    {
      schema: {
        tags,
        summary: 'A status page',
        params: SlugParams,
        response: { 200: StatusPage, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => pageOf(owner.sql, request.params.slug),
  );

  owner.patch(
    '/status-pages/:slug',
    {
      schema: {
        tags,
        summary: 'Change some fields of a status page (services replaces its list)',
        params: SlugParams,
        body: UpdateStatusPage,
        response: { 200: StatusPage, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      return changePage(owner.sql, request.params.slug, request.body);
    },
  );

  owner.delete(
    '/status-pages/:slug',
    {
      schema: {
        tags,
        summary: 'Delete a status page (its services stay)',
        params: SlugParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      if (!(await deletePage(owner.sql, request.params.slug))) {
        throw hubError('STATUS_PAGE_NOT_FOUND', request.params.slug);
      }
      return reply.status(204).send(null);
    },
  );
};
