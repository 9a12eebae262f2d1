// The owner's feed routes: subscribe, change, unsubscribe, mark items read, and OPML in and out.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams, NoContent } from '../../lib/schemas.ts';
import { normaliseTags } from '../../lib/tags.ts';
import { targetSpace } from '../capture/accept.ts';
import { checkCaptureUrl } from '../capture/routing.ts';
import { readOpml, writeOpml } from './opml.ts';
import { present } from './present.ts';
import { tags } from './read-routes.ts';
import {
  CreateFeed,
  FeedItemParams,
  ImportQuery,
  ImportResult,
  UpdateFeed,
  UpdateFeedItem,
} from './schema.ts';
import {
  allFeeds,
  deleteFeed,
  type FeedRow,
  insertFeed,
  insertFeedIfNew,
  updateFeed,
  updateItem,
} from './store.ts';

const opmlTypes = ['text/x-opml', 'application/xml', 'text/xml', 'text/plain'];
const opmlBodyLimit = 1024 * 1024;

export const ownerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config;
  app.addContentTypeParser(
    opmlTypes,
    { parseAs: 'string', bodyLimit: opmlBodyLimit },
    (_request, body, done) => done(null, body),
  );

  app.post(
    '/feeds',
    {
      schema: {
        tags,
        summary: 'Add a feed',
        description:
          'interval_minutes defaults to 60; capture "all" captures new links once per URL. A URL the address rules ' +
          'refuse is 400 URL_REFUSED; a URL twice in a space 409.',
        body: CreateFeed,
        response: { 201: Type.Ref('Feed'), ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const url = checkCaptureUrl(body.url, config).href;
      const feed = await app.sql.begin(async (tx) =>
        insertFeed(tx, {
          url,
          title: body.title?.trim() ?? '',
          space_id: await targetSpace(tx, request.principal, body.space_id),
          tags: normaliseTags(body.tags ?? []),
          interval_minutes: body.interval_minutes ?? 60,
          capture: body.capture ?? 'none',
          enabled: body.enabled ?? true,
        }),
      );
      return reply.status(201).send(present(feed));
    },
  );

  app.patch(
    '/feeds/:id',
    {
      schema: {
        tags,
        summary: 'Change a feed',
        description: 'A new url forgets the old validators and error and is polled within a minute.',
        params: IdParams,
        body: UpdateFeed,
        response: { 200: Type.Ref('Feed'), ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const { url, title, space_id, tags: feedTags, ...rest } = request.body;
      const feed = await app.sql.begin(async (tx) => {
        if (space_id !== undefined) await targetSpace(tx, request.principal, space_id);
        return updateFeed(tx, request.params.id, {
          ...rest,
          ...(url !== undefined ? { url: checkCaptureUrl(url, config).href } : {}),
          ...(title !== undefined ? { title: title.trim() } : {}),
          ...(space_id !== undefined ? { space_id } : {}),
          ...(feedTags !== undefined ? { tags: normaliseTags(feedTags) } : {}),
        });
      });
      if (!feed) throw hubError('FEED_NOT_FOUND', request.params.id);
      return present(feed);
    },
  );

  app.delete(
    '/feeds/:id',
    {
      schema: {
        tags,
        summary: 'Delete a feed and its items (captures made from them stay)',
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      if (!(await deleteFeed(app.sql, request.params.id)))
        throw hubError('FEED_NOT_FOUND', request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.patch(
    '/feeds/:id/items/:item_id',
    {
      schema: {
        tags,
        summary: 'Mark a feed item read or unread, or set its tags',
        params: FeedItemParams,
        body: UpdateFeedItem,
        response: { 200: Type.Ref('FeedItem'), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { id, item_id } = request.params;
      const { read, tags: itemTags } = request.body;
      const item = await updateItem(app.sql, id, item_id, {
        read,
        tags: itemTags === undefined ? undefined : normaliseTags(itemTags),
      });
      if (!item) throw hubError('FEED_ITEM_NOT_FOUND', item_id);
      return item;
    },
  );

  app.post(
    '/feeds/import',
    {
      schema: {
        tags,
        summary: 'Import feeds from OPML 2.0',
        description:
          'An OPML body (text/x-opml, application/xml, text/xml, text/plain; 1 MiB): each outline with an xmlUrl ' +
          'becomes a feed, its folders and category its tags; URLs the space has are left.',
        querystring: ImportQuery,
        body: Type.String({ description: 'an OPML 2.0 document' }),
        response: { 200: ImportResult, ...errors(400, 401, 403, 404, 413, 415, 429) },
      },
    },
    async (request) => {
      const outlines = await readOpml(request.body);
      const checked = outlines.map((feed) => ({ ...feed, url: checkCaptureUrl(feed.url, config).href }));
      return app.sql.begin(async (tx) => {
        const spaceId = await targetSpace(tx, request.principal, request.query.space_id);
        const created: FeedRow[] = [];
        for (const feed of checked) {
          const row = await insertFeedIfNew(tx, {
            ...feed,
            space_id: spaceId,
            interval_minutes: 60,
            capture: 'none',
            enabled: true,
          });
          if (row) created.push(row);
        }
        return {
          created: created.length,
          existing: checked.length - created.length,
          feeds: created.map(present),
        };
      });
    },
  );

  app.get(
    '/feeds/export.opml',
    {
      schema: {
        tags,
        summary: 'Export the feeds as OPML 2.0',
        description:
          'Each feed nested under its first tag, with all its tags in category; space_id limits it.',
        querystring: ImportQuery,
        produces: ['text/x-opml'],
        response: {
          200: Type.String({ description: 'an OPML 2.0 document' }),
          ...errors(400, 401, 403, 429),
        },
      },
    },
    async (request, reply) => {
      const feeds = await allFeeds(app.sql, request.query.space_id);
      reply.header('content-type', 'text/x-opml; charset=utf-8');
      reply.header('content-disposition', 'attachment; filename="feeds.opml"');
      return writeOpml(feeds, new Date());
    },
  );
};
