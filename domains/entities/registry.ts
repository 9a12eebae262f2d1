// The one registry of entity writes. REST routes (through write.ts) and the pending-change applier both apply
// writes here, so an approved change does exactly what the owner's own request would: same schema check, same
// handler, one transaction.
import { hubError } from '../../lib/errors.ts';
import { uuidPattern } from '../../lib/schemas.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { appHandler } from '../apps/entity.ts';
import { captureHandler, uploadHandler } from '../capture/entity.ts';
import { pageHandler } from '../pages/entity.ts';
import { projectHandler } from '../projects/entity.ts';
import { refHandler } from '../refs/entity.ts';
import { resourceHandler } from '../resources/entity.ts';
import { sourceDocHandler } from '../source-docs/entity.ts';
import { taskHandler } from '../tasks/entity.ts';
import type { Entity, EntityHandler, WriteContext, WriteFile } from './handler.ts';

export type { WriteContext, WriteFile } from './handler.ts';

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
}

export interface WriteResult {
  entity_id: string;
  /** The entity after the write; for a delete, as it was before. */
  entity: Entity;
  /** Whether a row was created (create, or an upsert that inserted). */
  created: boolean;
}

const handlers: Record<ChangeType, EntityHandler> = {
  page: pageHandler,
  project: projectHandler,
  task: taskHandler,
  ref: refHandler,
  resource: resourceHandler,
  source_doc: sourceDocHandler,
  capture: captureHandler,
  upload: uploadHandler,
  app: appHandler,
};

/** Entity types whose handler supports `upsert` (by external identity). */
export const upsertableTypes: ChangeType[] = changeTypes.filter(
  (type) => handlers[type].upsert !== undefined,
);

function targetId(write: EntityWrite): string {
  if (typeof write.entity_id !== 'string' || !uuidPattern.test(write.entity_id)) {
    throw hubError(
      'VALIDATION_FAILED',
      `a ${write.action} needs the entity_id (a uuid) of the ${write.entity_type}`,
    );
  }
  return write.entity_id;
}

/** Applies a write inside a transaction the caller already holds (for example with its own bookkeeping). */
export async function applyEntityWriteIn(
  tx: Db,
  write: EntityWrite,
  context: WriteContext,
): Promise<WriteResult> {
  const ctx = write.file ? { ...context, file: write.file } : context;
  if (!isChangeType(write.entity_type)) {
    throw hubError('UNKNOWN_ENTITY_TYPE', String(write.entity_type));
  }
  const handler = handlers[write.entity_type];
  switch (write.action) {
    case 'create': {
      const entity = await handler.create(tx, write.payload, ctx);
      return { entity_id: entity.id, entity, created: true };
    }
    case 'update': {
      const entity = await handler.update(tx, targetId(write), write.payload, ctx);
      return { entity_id: entity.id, entity, created: false };
    }
    case 'delete': {
      const entity = await handler.delete(tx, targetId(write), ctx);
      return { entity_id: entity.id, entity, created: false };
    }
    case 'upsert': {
      if (!handler.upsert) {
        throw hubError(
          'NOT_UPSERTABLE',
          `entity type ${write.entity_type} does not support upsert (upsert by external id exists for: ${upsertableTypes.join(', ')})`,
        );
      }
      const { entity, created } = await handler.upsert(tx, write.payload, ctx);
      return { entity_id: entity.id, entity, created };
    }
    default:
      throw hubError('UNKNOWN_ACTION', String(write.action));
  }
}

/** Applies one create, update, delete or upsert in its own transaction. Errors carry an HTTP statusCode. */
export async function applyEntityWrite(
  sql: Sql,
  write: EntityWrite,
  ctx: WriteContext,
): Promise<WriteResult> {
  return sql.begin((tx) => applyEntityWriteIn(tx, write, ctx)) as Promise<WriteResult>;
}
