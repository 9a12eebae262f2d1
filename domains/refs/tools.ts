// The refs domain's tools: read a ref, save one by its external identity.
import { Type } from 'typebox';
import { inReach } from '../entities/handler.ts';
import { IdArgs, type Tool, tool, Written, write, writeNote } from '../mcp/tool.ts';
import { CreateRef } from './schema.ts';
import { findRef } from './store.ts';

export const refTools: Tool[] = [
  tool({
    name: 'get_ref',
    title: 'Get a ref',
    description: 'One external reference.',
    input: IdArgs,
    output: Type.Ref('Ref'),
    readOnly: true,
    run: async (args, ctx) => inReach(ctx.principal, await findRef(ctx.sql, args.id), 'ref'),
  }),
  tool({
    name: 'upsert_ref',
    title: 'Save a ref',
    description: `Create or update a ref by its identity (source + external_id). ${writeNote}`,
    input: CreateRef,
    output: Written('Ref'),
    readOnly: false,
    run: (args, ctx) => write(ctx, { entity_type: 'ref', action: 'upsert', payload: args }),
  }),
];
