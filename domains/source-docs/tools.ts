// The source documents domain's tool: one captured document with its content.
import { Type } from 'typebox';
import { inReach } from '../entities/handler.ts';
import { IdArgs, type Tool, tool } from '../mcp/tool.ts';
import { findSourceDoc } from './store.ts';

export const sourceDocTools: Tool[] = [
  tool({
    name: 'get_source_doc',
    title: 'Get a source document',
    description: 'One captured document with its content.',
    input: IdArgs,
    output: Type.Ref('SourceDoc'),
    readOnly: true,
    run: async (args, ctx) =>
      inReach(ctx.principal, await findSourceDoc(ctx.sql, args.id), 'source document'),
  }),
];
