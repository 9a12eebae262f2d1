// The feeds domain's tool: the feeds with their poll state, read-only (feeds are the owner's to change).
import { readScopeOf } from '../entities/write.ts';
import { named } from '../mcp/schema.ts';
import { closed, type Tool, tool } from '../mcp/tool.ts';
import { present } from './present.ts';
import { Feed, FeedList, FeedListQuery } from './schema.ts';
import { listFeeds } from './store.ts';

named.Feed = Feed;

export const feedTools: Tool[] = [
  tool({
    name: 'list_feeds',
    title: 'List feeds',
    description:
      'The RSS, Atom and JSON feeds the hub follows: URL, title, space, tags, poll interval, whether new items are ' +
      'captured, the last poll error and the number of unread items.',
    input: closed(FeedListQuery),
    output: FeedList,
    readOnly: true,
    run: async (args, ctx) => {
      const page = await listFeeds(ctx.sql, {
        spaceId: readScopeOf(ctx.principal, args.space_id),
        limit: args.limit,
        offset: args.offset,
      });
      return { items: page.items.map(present), total: page.total, limit: args.limit, offset: args.offset };
    },
  }),
];
