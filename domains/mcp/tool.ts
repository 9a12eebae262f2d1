// How a domain declares a tool of the tool protocol: `tool({ name, input, output, run })` with the route's own TypeBox
// schemas. Each domain exports its tools from its tools.ts; domains/mcp/tools.ts gathers them. Reads go through the
// domain's own functions with the caller's scope; writes through writeAs, the one gate REST writes pass too.
import type { CallToolResult, Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import { type Static, type TObject, type TSchema, Type } from 'typebox';
import { Uuid } from '../../lib/schemas.ts';
import { Clone, Default } from '../../lib/typebox.ts';
import type { Principal } from '../../plugins/auth.ts';
import type { Sql } from '../../plugins/db.ts';
import type { RunnableAction } from '../../worker/contract.ts';
import { validator } from '../entities/handler.ts';
import type { EntityWrite, WriteEnv } from '../entities/registry.ts';
import { writeAs } from '../entities/write.ts';
import { PendingReceipt } from '../pending-changes/schema.ts';
import { flatten, type JsonSchema, toolSchema } from './json-schema.ts';
import { named } from './schema.ts';

export interface ToolContext {
  sql: Sql;
  /** The write handlers and configuration every write runs with. */
  env: WriteEnv;
  /** The tasks an agent may propose to run (propose_action). */
  actions: readonly RunnableAction[];
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

/**
 * A tool listed for one caller from stored state (a downstream MCP server's, domains/mcp-servers): its listing as
 * its owner gave it, and its result handed back as is.
 */
export interface CallerTool {
  listing: ListedTool;
  call(args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult>;
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
export function closed<T extends TSchema>(schema: T): T {
  const flat = flatten(schema) as TObject;
  return Type.Object(flat.properties, { additionalProperties: false }) as unknown as T;
}

export function tool<I extends TSchema>(spec: ToolSpec<I>): Tool {
  const check = validator(spec.input, `arguments for ${spec.name}`);
  return {
    name: spec.name,
    title: spec.title,
    description: spec.description,
    inputSchema: toolSchema(spec.input, named, 'input'),
    outputSchema: toolSchema(spec.output, named, 'output'),
    annotations: { title: spec.title, readOnlyHint: spec.readOnly },
    call(args, ctx) {
      const given = Default(spec.input, Clone(args ?? {}));
      return spec.run(check(given), ctx);
    },
  };
}

/** A write through the one gate: the entity written (shaped for the caller), or a pending change's receipt. */
export async function write(
  ctx: ToolContext,
  entityWrite: EntityWrite,
  present: (entity: object) => unknown | Promise<unknown> = (entity) => entity,
): Promise<unknown> {
  const outcome = await writeAs(ctx.sql, ctx.env, ctx.principal, entityWrite, ctx.spaceContext);
  if (outcome.status === 'pending')
    return { pending_change_id: outcome.pending_change_id, status: 'pending' };
  return present(outcome.result.entity);
}

/** A list page in the REST shape `{ items, total, limit, offset }`. */
export async function paged<T>(
  page: { limit: number; offset: number },
  rows: Promise<{ items: T[]; total: number }>,
) {
  return { ...(await rows), limit: page.limit, offset: page.offset };
}

export const writeNote =
  'At suggest tier the change waits for the owner: the result is then { pending_change_id, status: "pending" }.';

export const IdArgs = Type.Object({ id: Uuid }, { additionalProperties: false });

/** An update tool's arguments: the entity's id and the route's patch fields, at least one of them. */
export function withId<P extends TSchema>(patch: { properties: Record<string, P> }) {
  return Type.Object({ id: Uuid, ...patch.properties }, { additionalProperties: false, minProperties: 2 });
}

/** A write's result: the entity written, or the receipt of a pending change (suggest tier). */
export function Written(entity: string) {
  return Type.Union([Type.Ref(entity), PendingReceipt]);
}
