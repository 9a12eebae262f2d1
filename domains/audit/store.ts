// The audit log: append-only records of approvals, rejections and owner-tier agents' direct writes.

import type { Static } from 'typebox';
import { listPage } from '../../lib/list-page.ts';
import type { Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import type { AuditEntry, auditActions } from './schema.ts';

export type AuditAction = (typeof auditActions)[number];
export type AuditOutcome = 'applied' | 'failed' | 'rejected';

/** A row as the API shows it: the AuditEntry schema's type. */
export type AuditRow = Static<typeof AuditEntry>;

export type NewAuditEntry = Omit<AuditRow, 'id' | 'created_at'>;

const columns = [
  'id',
  'actor',
  'action',
  'pending_change_id',
  'entity_type',
  'entity_id',
  'outcome',
  'detail',
  'created_at',
];

/** Who acted, as the audit log names them. */
export function actorOf(principal: Principal): string {
  if (principal.kind === 'agent') return principal.agentId;
  if (principal.via === 'phone') return 'owner:phone';
  return principal.via === 'access' && principal.email ? `owner:access:${principal.email}` : 'owner';
}

export async function insertAuditEntry(sql: Db, entry: NewAuditEntry): Promise<AuditRow> {
  const [row] = await sql<AuditRow[]>`
    insert into audit_log (actor, action, pending_change_id, entity_type, entity_id, outcome, detail)
    values (${entry.actor}, ${entry.action}, ${entry.pending_change_id}, ${entry.entity_type},
            ${entry.entity_id}, ${entry.outcome}, ${sql.json(entry.detail as never)})
    returning ${sql(columns)}`;
  return row;
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  outcome?: string;
  entityType?: string;
  entityId?: string;
  pendingChangeId?: string;
  limit: number;
  offset: number;
}

/** Newest first. */
export async function listAuditEntries(sql: Db, filter: AuditFilter) {
  const where = sql`where true
    ${filter.actor ? sql`and actor = ${filter.actor}` : sql``}
    ${filter.action ? sql`and action = ${filter.action}` : sql``}
    ${filter.outcome ? sql`and outcome = ${filter.outcome}` : sql``}
    ${filter.entityType ? sql`and entity_type = ${filter.entityType}` : sql``}
    ${filter.entityId ? sql`and entity_id = ${filter.entityId}` : sql``}
    ${filter.pendingChangeId ? sql`and pending_change_id = ${filter.pendingChangeId}` : sql``}`;
  return listPage<AuditRow>(
    sql,
    { select: sql`${sql(columns)}`, from: sql`from audit_log ${where}`, orderBy: sql`created_at desc, id` },
    filter,
  );
}
