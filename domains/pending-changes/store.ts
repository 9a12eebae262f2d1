// Pending changes: suggest-tier agents' writes waiting for the owner. Status moves pending -> applying (claimed by
// one approval) -> applied, back to pending when applying fails, or pending -> rejected.
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';
import type { ChangeType, WriteAction } from '../entities/registry.ts';

export type PendingStatus = 'pending' | 'applying' | 'applied' | 'rejected';

export interface PendingChangeRow {
  id: string;
  agent_id: string | null;
  entity_type: ChangeType;
  action: WriteAction;
  entity_id: string | null;
  space_id: string | null;
  payload: Record<string, unknown> | null;
  status: PendingStatus;
  error: string | null;
  result_entity_id: string | null;
  reason: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewPendingChange {
  agent_id: string | null;
  entity_type: string;
  action: string;
  entity_id: string | null;
  space_id: string | null;
  payload: Record<string, unknown> | null;
}

const columns = [
  'id',
  'agent_id',
  'entity_type',
  'action',
  'entity_id',
  'space_id',
  'payload',
  'status',
  'error',
  'result_entity_id',
  'reason',
  'decided_by',
  'decided_at',
  'created_at',
  'updated_at',
];

/**
 * A claim older than this was left by an approval that never finished (the process died mid-apply: its
 * transaction rolled back). It may be claimed again; a live apply holds the row lock, so it is never overtaken.
 */
const staleClaim = '5 minutes';

export async function insertPendingChange(sql: Db, change: NewPendingChange): Promise<PendingChangeRow> {
  const [row] = await sql<PendingChangeRow[]>`
    insert into pending_changes (agent_id, entity_type, action, entity_id, space_id, payload)
    values (${change.agent_id}, ${change.entity_type}, ${change.action}, ${change.entity_id}, ${change.space_id},
            ${change.payload === null ? null : sql.json(change.payload as never)})
    returning ${sql(columns)}`;
  return row;
}

export async function findPendingChange(sql: Db, id: string): Promise<PendingChangeRow | undefined> {
  const [row] = await sql<PendingChangeRow[]>`select ${sql(columns)} from pending_changes where id = ${id}`;
  return row;
}

export interface PendingChangeFilter {
  status?: string;
  agentId?: string;
  entityType?: string;
  action?: string;
  limit: number;
  offset: number;
}

/** Newest first. */
export async function listPendingChanges(sql: Db, filter: PendingChangeFilter) {
  const where = sql`where true
    ${filter.status ? sql`and status = ${filter.status}` : sql``}
    ${filter.agentId ? sql`and agent_id = ${filter.agentId}` : sql``}
    ${filter.entityType ? sql`and entity_type = ${filter.entityType}` : sql``}
    ${filter.action ? sql`and action = ${filter.action}` : sql``}`;
  return listPage<PendingChangeRow>(
    sql,
    {
      select: sql`${sql(columns)}`,
      from: sql`from pending_changes ${where}`,
      orderBy: sql`created_at desc, id`,
    },
    filter,
  );
}

/**
 * Claims a change for one approval: one conditional update, so of any number of concurrent approvals exactly one
 * gets the row. Undefined when the change is missing or not pending.
 */
export async function claimPendingChange(sql: Db, id: string): Promise<PendingChangeRow | undefined> {
  const [row] = await sql<PendingChangeRow[]>`
    update pending_changes set status = 'applying', updated_at = now()
    where id = ${id}
      and (status = 'pending' or (status = 'applying' and updated_at < now() - ${staleClaim}::interval))
    returning ${sql(columns)}`;
  return row;
}

/** Holds the claimed row for the apply transaction; false when the claim was lost meanwhile. */
export async function lockClaimedChange(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql`select id from pending_changes where id = ${id} and status = 'applying' for update`;
  return row !== undefined;
}

export async function markApplied(
  sql: Db,
  id: string,
  resultEntityId: string,
  decidedBy: string,
): Promise<PendingChangeRow> {
  const [row] = await sql<PendingChangeRow[]>`
    update pending_changes set status = 'applied', result_entity_id = ${resultEntityId}, error = null,
      decided_by = ${decidedBy}, decided_at = now(), updated_at = now()
    where id = ${id} returning ${sql(columns)}`;
  return row;
}

/** Gives a failed claim back: pending again, with the error, so it can be approved again or rejected. */
export async function reopenPendingChange(
  sql: Db,
  id: string,
  error: string,
): Promise<PendingChangeRow | undefined> {
  const [row] = await sql<PendingChangeRow[]>`
    update pending_changes set status = 'pending', error = ${error}, updated_at = now()
    where id = ${id} and status = 'applying' returning ${sql(columns)}`;
  return row;
}

/** Rejects a pending change; undefined when it is missing or not pending. */
export async function rejectPendingChange(
  sql: Db,
  id: string,
  reason: string | null,
  decidedBy: string,
): Promise<PendingChangeRow | undefined> {
  const [row] = await sql<PendingChangeRow[]>`
    update pending_changes set status = 'rejected', reason = ${reason}, decided_by = ${decidedBy},
      decided_at = now(), updated_at = now()
    where id = ${id} and status = 'pending' returning ${sql(columns)}`;
  return row;
}
