// The search domain's tool: the one ranked search, in the caller's scope.
import { closed, type Tool, tool } from '../mcp/tool.ts';
import { SearchQuery, SearchResult } from './schema.ts';
import { searchAs } from './scoped.ts';

export const searchTools: Tool[] = [
  tool({
    name: 'search',
    title: 'Search',
    description:
      'Full-text search over pages, refs, source documents and the other knowledge in the spaces you can reach, ' +
      'ranked; messages only of the conversation your turn belongs to.',
    input: closed(SearchQuery),
    output: SearchResult,
    readOnly: true,
    run: (args, ctx) => searchAs(ctx.sql, ctx.principal, args),
  }),
];
