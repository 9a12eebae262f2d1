// The one registry of entity writes. REST routes (through write.ts) and the pending-change applier both apply
// writes here, so an approved change does exactly what the owner's own request would: same schema check, same
// handler, one transaction.
import { HubError, hubError } from '../../lib/errors.ts';
import { type IfMatch, ifMatchAllows } from '../../lib/etag.ts';
import { uuidPattern } from '../../lib/schemas.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { isTrashable, moveToTrash } from '../trash/move.ts';
import { recordEntityWrite } from './events.ts';
import type { Entity, EntityHandlers, WriteContext, WriteFile } from './handler.ts';
import {
  entityVersion,
  isVersioned,
  setWriteAuthor,
  versionBeforeThisTransaction,
  type WriteAuthor,
} from './store.ts';

export type { WriteContext, WriteEnv, WriteFile } from './handler.ts';

export const entityTypes = ['page', 'project', 'task', 'ref', 'resource', 'source_doc', 'app'] as const;
export type EntityType = (typeof entityTypes)[number];

export const writeActions = ['create', 'update', 'delete', 'upsert'] as const;
export type WriteAction = (typeof writeActions)[number];

export function isEntityType(value: unknown): value is EntityType {
  return typeof value === 'string' && (entityTypes as readonly string[]).includes(value);
}

/**
 * Deferred actions: writes that are not entities of their own but go through the same gate (a suggest-tier agent's
 * capture or upload waits for approval as a pending change; the approval performs it). Only `create` applies.
 */
export const actionTypes = ['capture', 'upload'] as const;
/** What a pending change or an audited write can be about. */
export const changeTypes = [...entityTypes, ...actionTypes] as const;
export type ChangeType = (typeof changeTypes)[number];

function isChangeType(value: unknown): value is ChangeType {
  return typeof value === 'string' && (changeTypes as readonly string[]).includes(value);
}

export interface EntityWrite {
  entity_type: ChangeType;
  action: WriteAction;
  /** The target of an update or delete. */
  entity_id?: string;
  /** The create, update or upsert body, shaped like the route's. */
  payload?: unknown;
  /** The file an upload carries, on disk (never in the payload). */
  file?: WriteFile;
  /** An update applies only to these versions of its target (If-Match, or the version a proposal was made against). */
  if_match?: IfMatch;
}

export interface WriteResult {
  entity_id: string;
  /** The entity after the write; for a delete, as it was before. */
  entity: Entity;
  /** Whether a row was created (create, or an upsert that inserted). */
  created: boolean;
  /** The entity's version after the write (entities that have versions; not after a delete). */
  version?: number;
}

/** Entity types whose handler supports `upsert` (by external identity). */
export function upsertableTypes(entities: EntityHandlers): ChangeType[] {
  return changeTypes.filter((type) => entities[type]?.upsert !== undefined);
}

function targetId(write: EntityWrite): string {
  if (typeof write.entity_id !== 'string' || !uuidPattern.test(write.entity_id)) {
    throw hubError(
      'VALIDATION_FAILED',
      `a ${write.action} needs the entity_id (a uuid) of the ${write.entity_type}`,
    );
  }
  return write.entity_id;
}

/**
 * Applies a write inside a transaction the caller already holds (for example with its own bookkeeping); the
 * timeline records it in the same transaction.
 */
export async function applyEntityWriteIn(
  tx: Db,
  write: EntityWrite,
  context: WriteContext,
): Promise<WriteResult> {
  const result = await applyHandler(tx, write, context);
  const { entity_type, action } = write;
  if (isEntityType(entity_type)) await recordEntityWrite(tx, { entity_type, action }, result, context);
  return result;
}

async function applyHandler(tx: Db, write: EntityWrite, context: WriteContext): Promise<WriteResult> {
  const ctx = write.file ? { ...context, file: write.file } : context;
  if (!isChangeType(write.entity_type)) {
    throw hubError('UNKNOWN_ENTITY_TYPE', String(write.entity_type));
  }
  const handler = context.entities[write.entity_type];
  if (!handler) throw hubError('UNKNOWN_ENTITY_TYPE', String(write.entity_type));
  await setWriteAuthor(tx, authorOf(ctx));
  switch (write.action) {
    case 'create': {
      const entity = await handler.create(tx, write.payload, ctx);
      return withVersion(tx, write, { entity_id: entity.id, entity, created: true });
    }
    case 'update': {
      const entity = await handler.update(tx, targetId(write), write.payload, ctx);
      if (write.if_match) await assertUnchangedSince(tx, write, entity.id, write.if_match);
      return withVersion(tx, write, { entity_id: entity.id, entity, created: false });
    }
    case 'delete': {
      const id = targetId(write);
      // What the delete takes along is kept in the trash first (a rehearsal's copy rolls back with it).
      if (isTrashable(write.entity_type)) {
        const author = authorOf(ctx);
        await moveToTrash(tx, write.entity_type, id, {
          principal: ctx.principal,
          author,
          audited: author.kind === 'owner',
        });
      }
      const entity = await handler.delete(tx, id, ctx);
      return { entity_id: entity.id, entity, created: false };
    }
    case 'upsert': {
      if (!handler.upsert) {
        throw hubError(
          'NOT_UPSERTABLE',
          `entity type ${write.entity_type} does not support upsert (upsert by external id exists for: ${upsertableTypes(context.entities).join(', ')})`,
        );
      }
      const { entity, created } = await handler.upsert(tx, write.payload, ctx);
      return withVersion(tx, write, { entity_id: entity.id, entity, created });
    }
    default:
      throw hubError('UNKNOWN_ACTION', String(write.action));
  }
}

function authorOf(ctx: WriteContext): WriteAuthor {
  if (ctx.approval) return { kind: 'approval', ...ctx.approval };
  return ctx.principal.kind === 'agent'
    ? { kind: 'agent', agent_id: ctx.principal.agentId }
    : { kind: 'owner' };
}

/**
 * Refuses an update made against a version the target no longer had when this write locked it (412
 * VERSION_CHANGED with `current_version`). Checked after the handler, which holds the row lock by then: the version
 * it had before this transaction raised it is the one the write really replaced, and a concurrent write that
 * committed first is seen. Checking here, not per handler, keeps every entity's lock order as it is.
 */
async function assertUnchangedSince(
  tx: Db,
  write: EntityWrite,
  id: string,
  condition: IfMatch,
): Promise<void> {
  if (!isVersioned(write.entity_type)) return;
  const replaced = await versionBeforeThisTransaction(tx, write.entity_type, id);
  if (replaced === undefined || ifMatchAllows(condition, replaced)) return;
  const expected = condition.any ? 'any' : condition.versions.join(', ') || 'none';
  throw new HubError(
    'VERSION_CHANGED',
    `the ${write.entity_type.replace(/_/g, ' ')} changed: it is at version ${replaced}, the write was made against ${expected}`,
    { current_version: replaced },
  );
}

async function withVersion(tx: Db, write: EntityWrite, result: WriteResult): Promise<WriteResult> {
  if (!isVersioned(write.entity_type)) return result;
  const version = await entityVersion(tx, write.entity_type, result.entity_id);
  return version === undefined ? result : { ...result, version };
}

/** Applies one create, update, delete or upsert in its own transaction. Errors carry an HTTP statusCode. */
export async function applyEntityWrite(
  sql: Sql,
  write: EntityWrite,
  ctx: WriteContext,
): Promise<WriteResult> {
  return sql.begin((tx) => applyEntityWriteIn(tx, write, ctx)) as Promise<WriteResult>;
}
