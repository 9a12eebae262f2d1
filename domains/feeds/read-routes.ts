// The feeds' routes agents read too: the feeds and their items, a scoped agent's space only.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors, IdParams } from '../../lib/schemas.ts';
import { agentCanReachSpace, type Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { readScope } from '../entities/write.ts';
import { present } from './present.ts';
import { FeedItemList, FeedItemListQuery, FeedList, FeedListQuery } from './schema.ts';
import { type FeedRow, findFeed, listFeeds, listItems } from './store.ts';

export const tags = ['feeds'];

/** The feed, when the caller may read it; otherwise 404 as if it did not exist. */
async function readableFeed(sql: Db, principal: Principal | null, id: string): Promise<FeedRow> {
  const feed = await findFeed(sql, id);
  if (!feed || !agentCanReachSpace(principal, feed.space_id)) throw hubError('FEED_NOT_FOUND', id);
  return feed;
}

export const readRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/feeds',
    {
      schema: {
        tags,
        summary: 'List feeds',
        description:
          'error: why the last poll failed; failures: in a row. A scoped agent sees its space only.',
        querystring: FeedListQuery,
        response: { 200: FeedList, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { space_id, limit, offset } = request.query;
      const page = await listFeeds(app.sql, { spaceId: readScope(request, space_id), limit, offset });
      return { items: page.items.map(present), total: page.total, limit, offset };
    },
  );

  app.get(
    '/feeds/:id',
    {
      schema: {
        tags,
        summary: 'Get a feed',
        params: IdParams,
        response: { 200: Type.Ref('Feed'), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => present(await readableFeed(app.sql, request.principal, request.params.id)),
  );

  app.get(
    '/feeds/:id/items',
    {
      schema: {
        tags,
        summary: "List a feed's items, newest first",
        params: IdParams,
        querystring: FeedItemListQuery,
        response: { 200: FeedItemList, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const feed = await readableFeed(app.sql, request.principal, request.params.id);
      const { unread, limit, offset } = request.query;
      const page = await listItems(app.sql, { feedId: feed.id, unread, limit, offset });
      return { ...page, limit, offset };
    },
  );
};
