// The search domain's tool: the one ranked search, in the caller's scope.
import { closed, type Tool, tool } from '../mcp/tool.ts';
import { searchAs } from './index.ts';
import { SearchQuery, SearchResult } from './schema.ts';

export const searchTools: Tool[] = [
  tool({
    name: 'search',
    title: 'Search',
    description:
      'Full-text search over pages, refs, source documents and messages in the spaces you can reach, ranked.',
    input: closed(SearchQuery),
    output: SearchResult,
    readOnly: true,
    run: (args, ctx) => searchAs(ctx.sql, ctx.principal, args),
  }),
];
