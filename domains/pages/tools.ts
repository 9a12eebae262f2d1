// The pages domain's tools: list and read pages in the caller's scope, create, edit and move them.
import { Type } from 'typebox';
import { Uuid } from '../../lib/schemas.ts';
import { inReach } from '../entities/handler.ts';
import { readScopeOf } from '../entities/write.ts';
import { closed, IdArgs, paged, type Tool, tool, Written, withId, write, writeNote } from '../mcp/tool.ts';
import { CreatePage, PageList, PageListQuery, UpdatePage } from './schema.ts';
import { findPage, listPages } from './store.ts';

const UpdatePageArgs = withId(UpdatePage);
const MovePageArgs = Type.Object(
  {
    id: Uuid,
    parent_id: UpdatePage.properties.parent_id,
    position: UpdatePage.properties.position,
  },
  {
    additionalProperties: false,
    minProperties: 2,
    description: 'parent_id null moves the page to the top level; position places it among its new siblings',
  },
);

export const pageTools: Tool[] = [
  tool({
    name: 'list_pages',
    title: 'List pages',
    description: 'Pages (with bodies), filtered by space or parent, in tree order.',
    input: closed(PageListQuery),
    output: PageList,
    readOnly: true,
    run: (args, ctx) =>
      paged(
        args,
        listPages(ctx.sql, {
          spaceId: readScopeOf(ctx.principal, args.space_id),
          parentId: args.parent_id,
          limit: args.limit,
          offset: args.offset,
        }),
      ),
  }),
  tool({
    name: 'get_page',
    title: 'Get a page',
    description: 'One page with its Markdown body.',
    input: IdArgs,
    output: Type.Ref('Page'),
    readOnly: true,
    run: async (args, ctx) => inReach(ctx.principal, await findPage(ctx.sql, args.id), 'page'),
  }),
  tool({
    name: 'create_page',
    title: 'Create a page',
    description: `Create a page, last among its siblings unless a position is given. ${writeNote}`,
    input: CreatePage,
    output: Written('Page'),
    readOnly: false,
    run: (args, ctx) => write(ctx, { entity_type: 'page', action: 'create', payload: args }),
  }),
  tool({
    name: 'update_page',
    title: 'Edit a page',
    description: `Change a page's title, body, parent or position. ${writeNote}`,
    input: UpdatePageArgs,
    output: Written('Page'),
    readOnly: false,
    run: ({ id, ...patch }, ctx) =>
      write(ctx, { entity_type: 'page', action: 'update', entity_id: id, payload: patch }),
  }),
  tool({
    name: 'move_page',
    title: 'Move a page',
    description: `Move a page under another parent (null: top level) and/or to a position. ${writeNote}`,
    input: MovePageArgs,
    output: Written('Page'),
    readOnly: false,
    run: ({ id, ...patch }, ctx) =>
      write(ctx, { entity_type: 'page', action: 'update', entity_id: id, payload: patch }),
  }),
];
