// Feeds: RSS, Atom and JSON Feed subscriptions, polled in the background (poll.ts), their items readable and
// searchable, exchanged with feed readers as OPML (opml.ts).
//
// Routes (access in brackets):
//   GET    /api/feeds                       [agent or owner] the feeds, a scoped agent's space only
//   GET    /api/feeds/:id                   [agent or owner]
//   GET    /api/feeds/:id/items             [agent or owner] newest first; ?unread=true
//   POST   /api/feeds                       [owner]
//   PATCH  /api/feeds/:id                   [owner]
//   DELETE /api/feeds/:id                   [owner] its items go with it; their captures stay
//   PATCH  /api/feeds/:id/items/:item_id    [owner] read state and tags
//   POST   /api/feeds/import                [owner] an OPML 2.0 body
//   GET    /api/feeds/export.opml           [owner]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HubModule } from '../../module.ts';
import { agentAccess, ownerOnly } from '../../plugins/auth.ts';
import { feedsCron, feedTasks } from './poll.ts';
import { readRoutes } from './read-routes.ts';
import { Feed, FeedItem } from './schema.ts';
import { feedTools } from './tools.ts';
import { ownerRoutes } from './write-routes.ts';

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Feed);
  app.addSchema(FeedItem);
  await app.register(agentAccess(readRoutes));
  await app.register(ownerOnly(ownerRoutes));
};

export default {
  name: 'feeds',
  routes: plugin,
  tasks: feedTasks,
  cron: feedsCron,
  tools: feedTools,
} satisfies HubModule;
