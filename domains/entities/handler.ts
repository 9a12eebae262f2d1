// What every entity handler of the write registry shares: its shape, the context it runs in, payload validation
// against the route's own TypeBox schema, and the space-scope check. Kept apart from registry.ts so the domains'
// handlers can import it without importing each other.

import type { Static, TSchema } from 'typebox';
import type { Config } from '../../config/index.ts';
import { defined } from '../../lib/defined.ts';
import { type HubError, hubError } from '../../lib/errors.ts';
import type { ReceivedFile } from '../../lib/incoming.ts';
import { refusedUrlField } from '../../lib/input.ts';
import { compiledOnUse } from '../../lib/typebox.ts';
import { agentCanReachSpace, type Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { spaceExists } from '../spaces/exists.ts';
import { defaultSpaceId } from '../spaces/inbox.ts';

/** The handlers of every entity and deferred-action type, by type (gathered from the modules). */
export type EntityHandlers = Readonly<Record<string, EntityHandler>>;

/** What every write runs with, whoever makes it: the handlers, and the configuration where a handler needs it. */
export interface WriteEnv {
  entities: EntityHandlers;
  /** The service's configuration; the deferred actions (capture, upload) need its limits and address rules. */
  config?: Config;
}

/** Who the write is for: the owner, or an agent allowed to write directly (scope is checked per space). */
export interface WriteContext extends WriteEnv {
  principal: Principal;
  /** The file the write carries (an upload), on disk: its bytes never travel in the payload. */
  file?: WriteFile;
  /**
   * The write is rehearsed for a proposal and rolled back: a handler may skip work whose only effect is the row it
   * writes (an upload checks its file's size and type but does not extract the text of a file of up to 25 MB).
   */
  rehearsal?: boolean;
  /** The write is the owner's approval of this agent's proposal (page history names both). */
  approval?: { pending_change_id: string; agent_id: string | null };
}

/** A write's file: where it is and what the owner reviews it by; `head` when it was just received. */
export type WriteFile = Omit<ReceivedFile, 'head'> & { head?: Buffer };

export interface Entity {
  id: string;
}

export interface EntityHandler {
  create(tx: Db, payload: unknown, ctx: WriteContext): Promise<Entity>;
  update(tx: Db, id: string, patch: unknown, ctx: WriteContext): Promise<Entity>;
  /** Returns the deleted entity as it was. */
  delete(tx: Db, id: string, ctx: WriteContext): Promise<Entity>;
  /** Only entities with an external identity (refs) have it. */
  upsert?(tx: Db, payload: unknown, ctx: WriteContext): Promise<{ entity: Entity; created: boolean }>;
}

/**
 * A checker for one schema: a payload stored earlier (a pending change) is checked again at apply time exactly as
 * the route checked it. Defaults are never applied here, so handlers fill them in themselves.
 */
export function validator<const T extends TSchema>(schema: T, what: string): (payload: unknown) => Static<T> {
  const compiled = compiledOnUse(schema);
  return (payload) => {
    if (compiled().Check(payload)) return payload as Static<T>;
    const problems = [...compiled().Errors(payload)];
    const url = refusedUrlField(problems);
    if (url !== undefined)
      throw hubError('URL_REFUSED', `invalid ${what}: ${url} must be an http or https URL`);
    const [first] = problems;
    const detail = first ? `${first.instancePath || '(root)'} ${first.message}` : 'does not match the schema';
    throw hubError('VALIDATION_FAILED', `invalid ${what}: ${detail}`);
  };
}

/** Refuses a write naming a space outside the agent's scope, as if the space did not exist. */
export function assertReach(ctx: WriteContext, spaceId: string): void {
  if (!agentCanReachSpace(ctx.principal, spaceId)) throw hubError('SPACE_NOT_FOUND');
}

/**
 * The space a create goes to: the one it names, which must exist and be in reach, or else the default space ("Inbox",
 * as for captures). A scoped agent's creates name its space before they get here (withAgentSpace).
 */
export async function spaceToCreateIn(
  tx: Db,
  ctx: WriteContext,
  spaceId: string | undefined,
): Promise<string> {
  const id = spaceId ?? (await defaultSpaceId(tx));
  assertReach(ctx, id);
  if (spaceId !== undefined && !(await spaceExists(tx, spaceId))) throw hubError('SPACE_NOT_FOUND');
  return id;
}

const notFoundCodes = {
  page: 'PAGE_NOT_FOUND',
  project: 'PROJECT_NOT_FOUND',
  task: 'TASK_NOT_FOUND',
  ref: 'REF_NOT_FOUND',
  resource: 'RESOURCE_NOT_FOUND',
  'source document': 'SOURCE_DOC_NOT_FOUND',
} as const;

/** An entity type in words, as its messages name it. */
export type EntityName = keyof typeof notFoundCodes;

/** The entity's 404; also what a scoped agent hears of an entity outside its space. */
export function missing(what: EntityName): HubError {
  return hubError(notFoundCodes[what]);
}

/**
 * A row the caller may see and act on: it exists and lies in its reach. Else the entity's 404 either way, so a
 * scoped agent learns nothing of other spaces.
 */
export function inReach<Row extends { space_id: string }>(
  principal: Principal | null,
  row: Row | undefined,
  what: EntityName,
): Row {
  if (!row || !agentCanReachSpace(principal, row.space_id)) throw missing(what);
  return row;
}

type Lock<Row> = (tx: Db, id: string) => Promise<Row | undefined>;

/** The entity locked for the rest of the transaction: it must exist and lie in the caller's reach. */
export async function lockInReach<Row extends { space_id: string }>(
  tx: Db,
  ctx: WriteContext,
  id: string,
  lock: Lock<Row>,
  what: EntityName,
): Promise<Row> {
  return inReach(ctx.principal, await lock(tx, id), what);
}

/** The delete of an entity that lives in a space: locked, checked, deleted; answers the row as it was. */
export function deleteInReach<Row extends Entity & { space_id: string }>(
  lock: Lock<Row>,
  remove: (tx: Db, id: string) => Promise<unknown>,
  what: EntityName,
): EntityHandler['delete'] {
  return async (tx, id, ctx) => {
    const row = await lockInReach(tx, ctx, id, lock, what);
    await remove(tx, id);
    return row;
  };
}

/**
 * The update of an entity that lives in a space: the patch checked, the row locked and in reach, then updated with
 * the fields the patch names (after `fields` normalises them).
 */
export function updateInReach<Patch extends object, Row extends Entity & { space_id: string }>(
  check: (patch: unknown) => Patch,
  lock: Lock<Row>,
  update: (tx: Db, id: string, fields: NoInfer<Partial<Patch>>) => Promise<Entity | undefined>,
  what: EntityName,
  fields: (input: Patch) => Patch = (input) => input,
): EntityHandler['update'] {
  return async (tx, id, patch, ctx) => {
    const input = check(patch);
    await lockInReach(tx, ctx, id, lock, what);
    return updated(await update(tx, id, defined(fields(input))), what);
  };
}

/** The row an update returned; none means it vanished. */
export function updated<Row>(row: Row | undefined, what: EntityName): Row {
  if (!row) throw missing(what);
  return row;
}
