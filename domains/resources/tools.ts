// The resources domain's tools: the infrastructure context agents may see (never monitoring or metadata), create
// and change resources. Dependencies are the owner's alone, over REST.
import { Type } from 'typebox';
import { Uuid } from '../../lib/schemas.ts';
import { assertSpaceReadableBy, readScopeOf } from '../entities/write.ts';
import { type Tool, type ToolContext, tool, Written, withId, write, writeNote } from '../mcp/tool.ts';
import { CreateResource, Resource, UpdateResource } from './schema.ts';
import { listResourcesForContext } from './store.ts';
import { presentResource, viewOf } from './view.ts';

const UpdateResourceArgs = withId(UpdateResource);
const ContextArgs = Type.Object({ space_id: Type.Optional(Uuid) }, { additionalProperties: false });
const Context = Type.Object({
  space_id: Type.Union([Uuid, Type.Null()], { description: 'null: every space in reach' }),
  /** A resource as agents see it: the allow-listed columns and its dependencies. */
  resources: Type.Array(Type.Omit(Resource, ['monitoring', 'metadata'])),
});

/** Resources reach agents with the allow-listed columns only, and a scoped agent with its space's dependencies. */
function resourceFor(ctx: ToolContext) {
  return (entity: object) => presentResource(ctx.sql, entity, ctx.principal);
}

export const resourceTools: Tool[] = [
  tool({
    name: 'get_context',
    title: 'Infrastructure context',
    description:
      'The resources of a space (or of every space you can reach) with the ids of what each depends on. ' +
      'Monitoring and metadata are never included.',
    input: ContextArgs,
    output: Context,
    readOnly: true,
    async run(args, ctx) {
      const spaceId = readScopeOf(ctx.principal, args.space_id) ?? null;
      if (spaceId !== null) await assertSpaceReadableBy(ctx.sql, ctx.principal, spaceId);
      const resources = await listResourcesForContext(ctx.sql, spaceId, viewOf(ctx.principal));
      return { space_id: spaceId, resources };
    },
  }),
  tool({
    name: 'create_resource',
    title: 'Create a resource',
    description: `Create an infrastructure resource. ${writeNote}`,
    input: CreateResource,
    output: Written('Resource'),
    readOnly: false,
    run: (args, ctx) =>
      write(ctx, { entity_type: 'resource', action: 'create', payload: args }, resourceFor(ctx)),
  }),
  tool({
    name: 'update_resource',
    title: 'Change a resource',
    description: `Change a resource (dependencies are the owner's alone). ${writeNote}`,
    input: UpdateResourceArgs,
    output: Written('Resource'),
    readOnly: false,
    run: ({ id, ...patch }, ctx) =>
      write(
        ctx,
        { entity_type: 'resource', action: 'update', entity_id: id, payload: patch },
        resourceFor(ctx),
      ),
  }),
];
