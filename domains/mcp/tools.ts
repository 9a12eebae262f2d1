// The tools of the tool protocol. Each reads through the domains' own functions with the caller's scope, or
// writes through writeAs, the one gate REST writes pass too (suggest tier: a pending change).
import { httpErrors } from '@fastify/sensible';
import { type Static, type TObject, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import { hubError } from '../../lib/errors.ts';
import type { Principal } from '../../plugins/auth.ts';
import type { Sql } from '../../plugins/db.ts';
import { actionTasks } from '../../worker/catalogue.ts';
import { runAction } from '../actions/actions.ts';
import { RunAction } from '../actions/schema.ts';
import { deviceList } from '../devices/index.ts';
import { Device, DeviceList, DeviceListQuery } from '../devices/schema.ts';
import { validator } from '../entities/handler.ts';
import type { EntityWrite } from '../entities/registry.ts';
import { assertPrincipalCanRead, readScopeOf, writeAs } from '../entities/write.ts';
import { serviceGroups } from '../health/index.ts';
import { Service, ServiceGroups, ServiceGroupsQuery } from '../health/schema.ts';
import { listNetworkHosts } from '../network-hosts/store.ts';
import { CreatePage, PageList, PageListQuery } from '../pages/schema.ts';
import { findPage, listPages } from '../pages/store.ts';
import { MyPendingChangeQuery, PendingChangeList } from '../pending-changes/schema.ts';
import { listPendingChanges } from '../pending-changes/store.ts';
import { findProject, projectLinks } from '../projects/store.ts';
import { CreateRef } from '../refs/schema.ts';
import { findRef } from '../refs/store.ts';
import { CreateResource } from '../resources/schema.ts';
import { type ContextResource, listResourcesForContext, toContext } from '../resources/store.ts';
import { searchAs } from '../search/index.ts';
import { SearchQuery, SearchResult } from '../search/schema.ts';
import { findSourceDoc } from '../source-docs/store.ts';
import { spaceExists } from '../spaces/store.ts';
import { CreateTask, TaskList, TaskListQuery } from '../tasks/schema.ts';
import { listTasks } from '../tasks/store.ts';
import { flatten, type JsonSchema, toolSchema } from './json-schema.ts';
import { auditHosts } from './network-audit.ts';
import {
  Context,
  ContextArgs,
  IdArgs,
  MovePageArgs,
  NetworkAudit,
  NetworkAuditArgs,
  named,
  ProjectWithLinks,
  UpdatePageArgs,
  UpdateResourceArgs,
  UpdateTaskArgs,
  Written,
} from './schema.ts';

export interface ToolContext {
  sql: Sql;
  principal: Principal;
  /** The space the caller acts in (a conversation's), injected into creates that name none. */
  spaceContext: string | null;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  outputSchema: JsonSchema & { type: 'object' };
  annotations: { title: string; readOnlyHint: boolean };
  /** Checks the arguments (defaults applied) and runs the tool; errors carry an HTTP statusCode. */
  call(args: unknown, ctx: ToolContext): Promise<unknown>;
}

interface ToolSpec<I extends TSchema> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: TSchema;
  readOnly: boolean;
  run(args: Static<I>, ctx: ToolContext): Promise<unknown>;
}

/**
 * A query schema as one closed object: a tool refuses arguments it does not know, like a REST body. The static
 * type is the query's own (same properties, only unknown ones refused).
 */
function closed<T extends TSchema>(schema: T): T {
  const flat = flatten(schema) as TObject;
  return Type.Object(flat.properties, { additionalProperties: false }) as unknown as T;
}

function tool<I extends TSchema>(spec: ToolSpec<I>): Tool {
  const check = validator(spec.input, `arguments for ${spec.name}`);
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: toolSchema(spec.input, named, 'input'),
    outputSchema: toolSchema(spec.output, named, 'output'),
    annotations: { title: spec.title, readOnlyHint: spec.readOnly },
    call(args, ctx) {
      const given = Value.Default(spec.input, Value.Clone(args ?? {}));
      return spec.run(check(given), ctx);
    },
  };
}

/** A write through the one gate: the entity written (shaped for the caller), or a pending change's receipt. */
async function write(
  ctx: ToolContext,
  entityWrite: EntityWrite,
  present: (entity: object) => unknown = (entity) => entity,
): Promise<unknown> {
  const outcome = await writeAs(ctx.sql, ctx.principal, entityWrite, ctx.spaceContext);
  if (outcome.status === 'pending')
    return { pending_change_id: outcome.pending_change_id, status: 'pending' };
  return present(outcome.result.entity);
}

/** Resources reach agents with the allow-listed columns only. */
function resourceFor(principal: Principal) {
  return (entity: object) => (principal.kind === 'owner' ? entity : toContext(entity as ContextResource));
}

/** An entity the caller may read: 404 when missing, 403 outside an agent's scope. */
function readable<T extends { space_id: string }>(ctx: ToolContext, row: T | undefined, what: string): T {
  if (row === undefined) throw httpErrors.notFound(`${what} not found`);
  assertPrincipalCanRead(ctx.principal, row.space_id);
  return row;
}

/** A list page in the REST shape `{ items, total, limit, offset }`. */
async function paged<T>(
  page: { limit: number; offset: number },
  rows: Promise<{ items: T[]; total: number }>,
) {
  return { ...(await rows), limit: page.limit, offset: page.offset };
}

const writeNote =
  'At suggest tier the change waits for the owner: the result is then { pending_change_id, status: "pending" }.';

export const tools: Tool[] = [
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
    run: async (args, ctx) => readable(ctx, await findPage(ctx.sql, args.id), 'page'),
  }),
  tool({
    name: 'get_project',
    title: 'Get a project',
    description: 'A project with its tasks and linked refs.',
    input: IdArgs,
    output: ProjectWithLinks,
    readOnly: true,
    async run(args, ctx) {
      const project = readable(ctx, await findProject(ctx.sql, args.id), 'project');
      return { project, ...(await projectLinks(ctx.sql, project.id)) };
    },
  }),
  tool({
    name: 'list_tasks',
    title: 'List tasks',
    description: 'Tasks, due first, filtered by space, project or status.',
    input: closed(TaskListQuery),
    output: TaskList,
    readOnly: true,
    run: (args, ctx) =>
      paged(
        args,
        listTasks(ctx.sql, {
          spaceId: readScopeOf(ctx.principal, args.space_id),
          projectId: args.project_id,
          status: args.status,
          limit: args.limit,
          offset: args.offset,
        }),
      ),
  }),
  tool({
    name: 'get_ref',
    title: 'Get a ref',
    description: 'One external reference.',
    input: IdArgs,
    output: Type.Ref('Ref'),
    readOnly: true,
    run: async (args, ctx) => readable(ctx, await findRef(ctx.sql, args.id), 'ref'),
  }),
  tool({
    name: 'get_source_doc',
    title: 'Get a source document',
    description: 'One captured document with its content.',
    input: IdArgs,
    output: Type.Ref('SourceDoc'),
    readOnly: true,
    run: async (args, ctx) => readable(ctx, await findSourceDoc(ctx.sql, args.id), 'source document'),
  }),
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
      if (spaceId !== null && !(await spaceExists(ctx.sql, spaceId)))
        throw httpErrors.notFound('space not found');
      return { space_id: spaceId, resources: await listResourcesForContext(ctx.sql, spaceId) };
    },
  }),
  tool({
    name: 'network_audit',
    title: 'Network audit',
    description:
      'The network host inventory with findings: hosts not seen recently or never, addresses shared by several ' +
      'hosts, missing address, role or operating system.',
    input: NetworkAuditArgs,
    output: NetworkAudit,
    readOnly: true,
    async run(args, ctx) {
      const hosts = await listNetworkHosts(ctx.sql);
      const now = new Date();
      return {
        checked_at: now,
        stale_after_days: args.stale_after_days,
        hosts,
        findings: auditHosts(hosts, now, args.stale_after_days),
      };
    },
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
  tool({
    name: 'create_task',
    title: 'Create a task',
    description: `Create a task in a project (it takes the project's space). ${writeNote}`,
    input: CreateTask,
    output: Written('Task'),
    readOnly: false,
    run: (args, ctx) => write(ctx, { entity_type: 'task', action: 'create', payload: args }),
  }),
  tool({
    name: 'update_task',
    title: 'Change a task',
    description: `Change a task, or move it to another project of the same space. ${writeNote}`,
    input: UpdateTaskArgs,
    output: Written('Task'),
    readOnly: false,
    run: ({ id, ...patch }, ctx) =>
      write(ctx, { entity_type: 'task', action: 'update', entity_id: id, payload: patch }),
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
  tool({
    name: 'create_resource',
    title: 'Create a resource',
    description: `Create an infrastructure resource. ${writeNote}`,
    input: CreateResource,
    output: Written('Resource'),
    readOnly: false,
    run: (args, ctx) =>
      write(ctx, { entity_type: 'resource', action: 'create', payload: args }, resourceFor(ctx.principal)),
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
        resourceFor(ctx.principal),
      ),
  }),
  tool({
    name: 'list_my_pending_changes',
    title: 'My pending changes',
    description:
      'The changes you proposed, newest first, with their status and the error of a failed approval.',
    input: closed(MyPendingChangeQuery),
    output: PendingChangeList,
    readOnly: true,
    async run(args, ctx) {
      if (ctx.principal.kind !== 'agent') {
        throw httpErrors.badRequest(
          'only agents propose changes; the owner reviews them at /api/pending-changes',
        );
      }
      const { status, limit, offset } = args;
      return paged(
        args,
        listPendingChanges(ctx.sql, { agentId: ctx.principal.agentId, status, limit, offset }),
      );
    },
  }),
  tool({
    name: 'propose_action',
    title: 'Propose an action',
    description:
      `Ask the owner to run a task (${actionTasks.join(', ')}); params are its payload. An agent's proposal ` +
      'waits for the owner’s approval ({ action_id, status: "pending" }); the owner’s own call runs it at once.',
    input: RunAction,
    output: Type.Object({
      action_id: Type.Optional(Type.String()),
      job_id: Type.Optional(Type.String()),
      status: Type.String(),
    }),
    readOnly: false,
    async run(args, ctx) {
      if (ctx.principal.kind === 'agent' && ctx.principal.tier === 'read') {
        throw hubError('TIER_CANNOT_WRITE', ctx.principal.tier);
      }
      const outcome = await runAction(ctx.sql, ctx.principal, args);
      return outcome.started
        ? { job_id: outcome.job_id, status: 'queued' }
        : { action_id: outcome.action.id, status: 'pending' };
    },
  }),
];

// Devices and services: read tools over the inventory and the health registry (their schemas by $id first).
named.Device = Device;
named.Service = Service;
tools.push(
  tool({
    name: 'list_devices',
    title: 'List LAN devices',
    description:
      'The LAN device inventory in bands (new, known, ignored): MAC, IP, names, vendor, presence; filter by ' +
      'status, present or q (name, host name, IP, MAC, vendor).',
    input: closed(DeviceListQuery),
    output: DeviceList,
    readOnly: true,
    run: (args, ctx) => deviceList(ctx.sql, args),
  }),
  tool({
    name: 'service_health',
    title: 'Service health',
    description:
      'Monitored services grouped by category with their current state (up, down, pending, unknown), latency, ' +
      'last check, since when, the failure message and 24-hour uptime.',
    input: closed(ServiceGroupsQuery),
    output: ServiceGroups,
    readOnly: true,
    run: (args, ctx) => serviceGroups(ctx.sql, args),
  }),
);

export const toolsByName = new Map(tools.map((entry) => [entry.name, entry]));
