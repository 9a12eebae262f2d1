// SQL of pending actions: an agent's proposal to run a task, waiting for the owner.
import type { Db } from '../../plugins/db.ts';
import type { PendingAction } from './schema.ts';

const columns = (sql: Db) => sql`
  id, action, params, agent_id, status, job_id, result, reason, error, decided_by, decided_at, created_at`;

export async function insertPendingAction(
  sql: Db,
  proposal: { action: string; params: Record<string, unknown>; agent_id: string },
): Promise<PendingAction> {
  const [row] = await sql<PendingAction[]>`
    insert into pending_actions (action, params, agent_id)
    values (${proposal.action}, ${sql.json(proposal.params as never)}, ${proposal.agent_id})
    returning ${columns(sql)}`;
  return row;
}

export async function listPendingActions(sql: Db): Promise<PendingAction[]> {
  return sql<PendingAction[]>`
    select ${columns(sql)} from pending_actions where status = 'pending' order by created_at, id`;
}

export async function findPendingAction(sql: Db, id: string): Promise<PendingAction | undefined> {
  const [row] = await sql<PendingAction[]>`select ${columns(sql)} from pending_actions where id = ${id}`;
  return row;
}

/** The one claim: pending → applying in a single conditional update, so only one approval ever proceeds. */
export async function claimPendingAction(sql: Db, id: string): Promise<PendingAction | undefined> {
  const [row] = await sql<PendingAction[]>`
    update pending_actions set status = 'applying' where id = ${id} and status = 'pending'
    returning ${columns(sql)}`;
  return row;
}

export async function markApproved(
  sql: Db,
  id: string,
  outcome: { job_id: string | null; result?: unknown },
  actor: string,
): Promise<PendingAction> {
  const result = outcome.result === undefined ? null : sql.json(outcome.result as never);
  const [row] = await sql<PendingAction[]>`
    update pending_actions set status = 'approved', job_id = ${outcome.job_id}, result = ${result},
      decided_by = ${actor}, decided_at = now()
    where id = ${id} returning ${columns(sql)}`;
  return row;
}

export async function reopenPendingAction(sql: Db, id: string, error: string): Promise<void> {
  await sql`update pending_actions set status = 'pending', error = ${error} where id = ${id}`;
}

export async function rejectPendingAction(
  sql: Db,
  id: string,
  reason: string | null,
  actor: string,
): Promise<PendingAction | undefined> {
  const [row] = await sql<PendingAction[]>`
    update pending_actions set status = 'rejected', reason = ${reason}, decided_by = ${actor}, decided_at = now()
    where id = ${id} and status = 'pending' returning ${columns(sql)}`;
  return row;
}
