// The approval gate. A suggest-tier agent's write becomes a pending change (rehearsed first, so a change that
// could never apply is refused at once, and held to the agent's quota); the owner's approval claims it, applies it
// through the entity registry and records the outcome; an owner-tier agent's direct write is applied and recorded
// together. A change's file (an upload) waits on disk and goes once the change is applied or rejected.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { TransactionSql } from 'postgres';
import type { Config } from '../../config/index.ts';
import { type ErrorCode, HubError, hubError } from '../../lib/errors.ts';
import type { AgentPrincipal, Principal } from '../../plugins/auth.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { describeError } from '../../plugins/errors.ts';
import { raiseApprovalWaiting } from '../approvals/tokens.ts';
import { actorOf, insertAuditEntry } from '../audit/trail.ts';
import {
  applyEntityWriteIn,
  type EntityWrite,
  type WriteEnv,
  type WriteResult,
} from '../entities/registry.ts';
import { changesSince, type Staleness, targetState } from '../entities/versions.ts';
import { readSetting } from '../settings/registry.ts';
import { defaultSpaceId } from '../spaces/inbox.ts';
import { type Actor, recordEvent, actorOf as timelineActor } from '../timeline/record.ts';
import { keepPendingFile, pendingWriteFile, removePendingFile } from './files.ts';
import { pendingQuotaSetting } from './setting.ts';
import {
  claimPendingChange,
  findPendingChange,
  insertPendingChange,
  lockClaimedChange,
  lockProposalsOf,
  markApplied,
  openChangesOf,
  type PendingChangeRow,
  rejectPendingChange,
  reopenPendingChange,
} from './store.ts';

/** Carries a rehearsal's result out of the savepoint it is rolled back with. */
class Rehearsed extends Error {
  readonly result: WriteResult;
  constructor(result: WriteResult) {
    super('rehearsal');
    this.result = result;
  }
}

/**
 * Runs the write exactly as it would apply, as the proposing agent (its scope checked by the handlers), and rolls
 * it back: validation, scope, missing targets and conflicts surface now, as the REST caller's error.
 */
async function rehearse(
  tx: TransactionSql,
  write: EntityWrite,
  principal: Principal,
  env: WriteEnv,
): Promise<WriteResult> {
  try {
    await tx.savepoint(async (sp) => {
      throw new Rehearsed(await applyEntityWriteIn(sp, write, { ...env, principal, rehearsal: true }));
    });
  } catch (error) {
    if (error instanceof Rehearsed) return error.result;
    throw error;
  }
  throw new Error('a rehearsal always rolls back');
}

function spaceOf(entity: object): string | null {
  return 'space_id' in entity && typeof entity.space_id === 'string' ? entity.space_id : null;
}

function payloadOf(write: EntityWrite): Record<string, unknown> | null {
  const payload = write.payload;
  if (payload === undefined || payload === null) return null;
  if (typeof payload !== 'object' || Array.isArray(payload)) {
    throw hubError('VALIDATION_FAILED', 'a change payload must be an object');
  }
  return payload as Record<string, unknown>;
}

/**
 * 429 PENDING_QUOTA when one more change of `bytes` would take the agent past its quota (the pending_quota
 * setting): its undecided changes, counted with their payloads and files.
 */
export async function assertProposalRoom(sql: Db, agent: AgentPrincipal, bytes: number): Promise<void> {
  const quota = await readSetting(sql, pendingQuotaSetting);
  const open = await openChangesOf(sql, agent.agentId);
  if (open.changes + 1 > quota.max_changes || open.bytes + bytes > quota.max_bytes) {
    throw hubError(
      'PENDING_QUOTA',
      `agent "${agent.name}" has ${open.changes} changes holding ${open.bytes} bytes waiting for approval; ` +
        `one more of ${bytes} bytes would pass its quota of ${quota.max_changes} changes and ` +
        `${quota.max_bytes} bytes (setting pending_quota): wait for the owner to decide some`,
    );
  }
}

/** What a proposal weighs against the quota: its payload as stored, and its file. */
function proposalBytes(payload: Record<string, unknown> | null, write: EntityWrite): number {
  return (payload === null ? 0 : Buffer.byteLength(JSON.stringify(payload))) + (write.file?.size ?? 0);
}

/**
 * Turns a suggest-tier agent's write into a pending change. Its file, if any, is moved under the change's id before
 * the row commits: a row never lacks its file, and a file whose row did not commit is swept at the next start.
 */
export async function proposeChange(
  sql: Sql,
  principal: AgentPrincipal,
  write: EntityWrite,
  env: WriteEnv,
): Promise<PendingChangeRow> {
  const payload = payloadOf(write);
  const file = write.file;
  const dataDir = file ? dataDirOf(env.config) : null;
  const change = (await sql.begin(async (tx) => {
    await lockProposalsOf(tx, principal.agentId);
    await assertProposalRoom(tx, principal, proposalBytes(payload, write));
    const preview = await rehearse(tx, write, principal, env);
    // A create naming no space goes to the default space, which the rehearsal may have made only to roll it back:
    // made for real here, so the change names a space that exists.
    const previewSpace = spaceOf(preview.entity);
    const spaceId = previewSpace && payload?.space_id === undefined ? await defaultSpaceId(tx) : previewSpace;
    const targeted = write.action === 'update' || write.action === 'delete';
    const target =
      targeted && write.entity_id
        ? await targetState(tx, write.entity_type, write.entity_id, payload)
        : undefined;
    const id = randomUUID();
    const change = await insertPendingChange(tx, {
      id,
      agent_id: principal.agentId,
      entity_type: write.entity_type,
      action: write.action,
      entity_id: write.action === 'update' || write.action === 'delete' ? (write.entity_id ?? null) : null,
      space_id: spaceId,
      payload,
      file: file ? { name: file.name, type: file.type, size: file.size, sha256: file.sha256 } : null,
      target_version: target?.version ?? null,
      target_before: target?.before ?? null,
    });
    if (file && dataDir) await keepPendingFile(dataDir, id, file);
    await recordChangeEvent(tx, change, 'proposed', { agent: principal.agentId });
    return change;
  })) as PendingChangeRow;
  if (env.config) {
    const what = `${change.action} ${change.entity_type}${change.entity_id ? ` ${change.entity_id}` : ''}`;
    await raiseApprovalWaiting(sql, env.config, {
      target: { pending_change_id: change.id },
      summary: `agent ${change.agent_id} proposes to ${what}`,
      agent_id: change.agent_id,
    });
  }
  return change;
}

function dataDirOf(config: Config | undefined): string {
  // Every path that carries a file passes the configuration; a caller that forgot it is a bug.
  if (!config) throw new Error('a change with a file needs the configuration (its data directory)');
  return config.server.dataDir;
}

/** An owner-tier agent's write: applied directly, recorded in the audit log in the same transaction. */
export async function applyDirect(
  sql: Sql,
  principal: AgentPrincipal,
  write: EntityWrite,
  env: WriteEnv,
): Promise<WriteResult> {
  return sql.begin(async (tx) => {
    const result = await applyEntityWriteIn(tx, write, { ...env, principal });
    await insertAuditEntry(tx, {
      actor: actorOf(principal),
      action: 'apply_direct',
      pending_change_id: null,
      entity_type: write.entity_type,
      entity_id: result.entity_id,
      outcome: 'applied',
      detail: { entity_action: write.action, space_id: spaceOf(result.entity), created: result.created },
    });
    return result;
  }) as Promise<WriteResult>;
}

export type Approval =
  | { ok: true; change: PendingChangeRow; result: WriteResult }
  | {
      ok: false;
      statusCode: number;
      code: ErrorCode;
      message: string;
      change: PendingChangeRow | null;
      /** More of the answer (a stale change: the versions and what changed). */
      extra?: Record<string, unknown>;
    };

function writeOf(change: PendingChangeRow, config: Config | undefined, force: boolean): EntityWrite {
  const proposedAgainst = change.target_version;
  return {
    entity_type: change.entity_type,
    action: change.action,
    entity_id: change.entity_id ?? undefined,
    payload: change.payload ?? undefined,
    file: change.file ? pendingWriteFile(dataDirOf(config), change) : undefined,
    // An update applies only to the version it was proposed against, unless the owner forces it.
    if_match: proposedAgainst === null || force ? undefined : { any: false, versions: [proposedAgainst] },
  };
}

/** What changed in a change's target since it was proposed (undefined: nothing, or nothing to compare). */
async function stalenessOf(sql: Db, change: PendingChangeRow): Promise<Staleness | undefined> {
  if (change.target_version === null || change.entity_id === null) return undefined;
  const proposed = { version: change.target_version, before: change.target_before ?? {} };
  return changesSince(sql, change.entity_type, change.entity_id, proposed, change.payload);
}

function staleError(change: PendingChangeRow, staleness: Staleness): HubError {
  return new HubError(
    'PENDING_CHANGE_STALE',
    `the ${change.entity_type.replace(/_/g, ' ')} changed since the change was proposed (version ` +
      `${staleness.proposed_against_version}, now ${staleness.current_version}): review what changed, then ` +
      'approve with { "force": true } or reject it',
    { ...staleness },
  );
}

/**
 * Approves a change: claims it (pending -> applying, one conditional update), applies it through the registry as
 * the approver and marks it applied with the audit entry, all in one transaction. When applying fails the change
 * is reopened with the error and the failure is audited; a change that is not pending is a 409, a missing one 404.
 */
export async function approveChange(
  sql: Sql,
  id: string,
  principal: Principal,
  log: FastifyBaseLogger,
  env: WriteEnv,
  options: { force?: boolean } = {},
): Promise<Approval> {
  const force = options.force === true;
  const claimed = await claimPendingChange(sql, id);
  if (!claimed) {
    const current = await findPendingChange(sql, id);
    if (!current)
      return {
        ok: false,
        statusCode: 404,
        code: 'PENDING_CHANGE_NOT_FOUND',
        message: 'pending change not found',
        change: null,
      };
    return {
      ok: false,
      statusCode: 409,
      code: 'NOT_PENDING',
      message: `the change is ${current.status}, not pending`,
      change: current,
    };
  }
  const actor = actorOf(principal);
  const audited = {
    actor,
    action: 'approve' as const,
    pending_change_id: id,
    entity_type: claimed.entity_type,
  };
  const proposal = { entity_action: claimed.action, agent_id: claimed.agent_id, space_id: claimed.space_id };
  let approved: Approval;
  try {
    approved = (await sql.begin(async (tx) => {
      if (!(await lockClaimedChange(tx, id)))
        throw hubError('NOT_PENDING', 'the change was claimed by another approval');
      const staleness = force ? undefined : await stalenessOf(tx, claimed);
      if (staleness) throw staleError(claimed, staleness);
      const result = await applyEntityWriteIn(tx, writeOf(claimed, env.config, force), {
        ...env,
        principal,
        approval: { pending_change_id: id, agent_id: claimed.agent_id },
      });
      const change = await markApplied(tx, id, result.entity_id, actor);
      await recordChangeEvent(tx, change, 'approved', timelineActor(principal));
      await insertAuditEntry(tx, {
        ...audited,
        entity_id: result.entity_id,
        outcome: 'applied',
        detail: { ...proposal, created: result.created },
      });
      return { ok: true, change, result };
    })) as Approval;
  } catch (caught) {
    // The target changed between the check and the write (the write's own version check saw it): stale as well.
    const staleness =
      caught instanceof HubError && caught.code === 'VERSION_CHANGED'
        ? await stalenessOf(sql, claimed)
        : undefined;
    const error = staleness ? staleError(claimed, staleness) : caught;
    const failure = describeError(error);
    const extra = error instanceof HubError ? error.extra : undefined;
    if (failure.statusCode >= 500) log.error({ err: error }, 'applying a pending change failed');
    const change = (await sql.begin(async (tx) => {
      const reopened = await reopenPendingChange(tx, id, failure.message);
      await insertAuditEntry(tx, {
        ...audited,
        entity_id: claimed.entity_id,
        outcome: 'failed',
        detail: { ...proposal, status_code: failure.statusCode, error: failure.message },
      });
      return reopened ?? (await findPendingChange(tx, id)) ?? null;
    })) as PendingChangeRow | null;
    return { ok: false, ...failure, change, ...(extra ? { extra } : {}) };
  }
  if (claimed.file) await removePendingFile(dataDirOf(env.config), id);
  return approved;
}

/** Rejects a pending change with an optional reason, audited in the same transaction; its file goes after. */
export async function rejectChange(
  sql: Sql,
  id: string,
  principal: Principal,
  reason: string | null,
  config: Pick<Config, 'server'>,
): Promise<PendingChangeRow> {
  const rejected = (await sql.begin(async (tx) => {
    const actor = actorOf(principal);
    const change = await rejectPendingChange(tx, id, reason, actor);
    if (!change) {
      const current = await findPendingChange(tx, id);
      if (!current) throw hubError('PENDING_CHANGE_NOT_FOUND');
      throw hubError('NOT_PENDING', `the change is ${current.status}, not pending`);
    }
    await insertAuditEntry(tx, {
      actor,
      action: 'reject',
      pending_change_id: id,
      entity_type: change.entity_type,
      entity_id: change.entity_id,
      outcome: 'rejected',
      detail: { entity_action: change.action, agent_id: change.agent_id, reason },
    });
    await recordChangeEvent(tx, change, 'rejected', timelineActor(principal));
    return change;
  })) as PendingChangeRow;
  if (rejected.file) await removePendingFile(config.server.dataDir, id);
  return rejected;
}

/** pending_change.proposed / approved / rejected on the timeline, in the space of the change. */
function recordChangeEvent(
  sql: Db,
  change: PendingChangeRow,
  what: 'proposed' | 'approved' | 'rejected',
  actor: Actor,
): Promise<void> {
  return recordEvent(sql, {
    kind: `pending_change.${what}`,
    severity: what === 'proposed' ? 'notice' : 'info',
    title: `Change ${what}: ${summaryOf(change)}`,
    subject: { type: 'pending_change', id: change.id },
    actor,
    space_id: change.space_id,
    data: {
      agent_id: change.agent_id,
      entity_type: change.entity_type,
      action: change.action,
      entity_id: change.result_entity_id ?? change.entity_id,
    },
  });
}

/** What a change would do, in a few words: `update page: Backups`. */
function summaryOf(change: PendingChangeRow): string {
  const payload = change.payload ?? {};
  const named = ['title', 'name', 'url']
    .map((field) => payload[field])
    .find((value) => typeof value === 'string');
  return `${change.action} ${change.entity_type.replace(/_/g, ' ')}${named ? `: ${named}` : ''}`;
}

export interface DraftSummary {
  pending_change_id: string;
  action: string;
  entity_type: string;
  summary: string;
}

/** A pending change as the assistant shows it in place: what it would do, in a line. */
export async function describeDraft(sql: Sql, id: string): Promise<DraftSummary | null> {
  const change = await findPendingChange(sql, id);
  if (!change) return null;
  return {
    pending_change_id: change.id,
    action: change.action,
    entity_type: change.entity_type,
    summary: summaryOf(change),
  };
}
