import type { Db } from '../../plugins/db.ts';

/** One pending change or one pending action. */
export type ApprovalTarget =
  | { pending_change_id: string; pending_action_id?: undefined }
  | { pending_action_id: string; pending_change_id?: undefined };

export async function insertApprovalToken(
  sql: Db,
  digest: Buffer,
  target: ApprovalTarget,
  decision: 'approve' | 'reject',
  expiresAt: Date,
): Promise<void> {
  await sql`
    insert into approval_tokens (digest, pending_change_id, pending_action_id, decision, expires_at)
    values (${digest}, ${target.pending_change_id ?? null}, ${target.pending_action_id ?? null}, ${decision},
      ${expiresAt})`;
}

/**
 * Spends the token with this digest, if unused and unexpired, with the other tokens of its change or action (one
 * decision each): one conditional update, so two requests with one token cannot both pass.
 */
export async function spendApprovalToken(sql: Db, digest: Buffer) {
  const [row] = await sql<
    { pending_change_id: string | null; pending_action_id: string | null; decision: 'approve' | 'reject' }[]
  >`
    update approval_tokens set used_at = now()
    where digest = ${digest} and used_at is null and expires_at > now()
    returning pending_change_id, pending_action_id, decision`;
  if (!row) return null;
  await sql`
    update approval_tokens set used_at = now()
    where used_at is null and (pending_change_id = ${row.pending_change_id} or pending_action_id = ${row.pending_action_id})`;
  return row;
}

/** Tokens expired more than a day ago are of no use even to explain a refusal. */
export async function pruneApprovalTokens(sql: Db): Promise<number> {
  const result = await sql`delete from approval_tokens where expires_at < now() - interval '1 day'`;
  return result.count;
}
