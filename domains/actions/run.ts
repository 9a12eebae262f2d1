// Running a task of the catalogue by name: the owner's run is enqueued at once; an agent's run is a proposal the
// owner approves (enqueued exactly once, under one atomic claim) or rejects, both audited.

import type { Config } from '../../config/index.ts';
import { hubError } from '../../lib/errors.ts';
import type { AgentPrincipal, Principal } from '../../plugins/auth.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import type { RunnableAction } from '../../worker/contract.ts';
import { enqueue, payloadProblem } from '../../worker/enqueue.ts';
import { raiseApprovalWaiting } from '../approvals/tokens.ts';
import { actorOf, insertAuditEntry } from '../audit/trail.ts';
import { type DownstreamCall, forwardCall } from '../mcp-servers/forward.ts';
import type { KeyConfig } from '../mcp-servers/manage.ts';
import { type Actor, recordEvent, actorOf as timelineActor } from '../timeline/record.ts';
import type { PendingAction, RunAction } from './schema.ts';
import {
  claimPendingAction,
  findPendingAction,
  insertPendingAction,
  markApproved,
  rejectPendingAction,
  reopenPendingAction,
} from './store.ts';

/** The names of the runnable actions, for messages and docs. */
export function actionNames(actions: readonly RunnableAction[]): string[] {
  return actions.map((action) => action.task.name);
}

/** The task and payload an action names; 400 for a task that is not actionable or params that do not fit. */
export function actionPayload(
  actions: readonly RunnableAction[],
  body: RunAction,
): { action: RunnableAction; payload: Record<string, unknown> } {
  const action = actions.find((candidate) => candidate.task.name === body.action);
  if (!action) {
    throw hubError(
      'NOT_AN_ACTION',
      `"${body.action}" is not an action; actions: ${actionNames(actions).join(', ') || 'none yet'}`,
    );
  }
  const payload = { ...action.defaults, ...body.params };
  const problem = payloadProblem(action.task, payload);
  if (problem) throw hubError('VALIDATION_FAILED', `params: ${problem}`);
  return { action, payload };
}

export type ActionOutcome =
  | { started: true; job_id: string; task: string }
  | { started: false; action: PendingAction };

export async function runAction(
  sql: Sql,
  actions: readonly RunnableAction[],
  principal: Principal,
  body: RunAction,
  /** Where approval.waiting goes when an agent's run becomes a pending action. */
  alerts?: { config: Pick<Config, 'alerts' | 'assistant'> },
): Promise<ActionOutcome> {
  const { action, payload } = actionPayload(actions, body);
  const task = action.task.name;
  if (principal.kind === 'agent') {
    const pending = await proposeAction(sql, { action: task, params: payload, agent_id: principal.agentId });
    if (alerts) {
      await raiseApprovalWaiting(sql, alerts.config, {
        target: { pending_action_id: pending.id },
        summary: `agent ${principal.agentId} asks to run ${task}`,
        agent_id: principal.agentId,
      });
    }
    return { started: false, action: pending };
  }
  const job = await enqueue(sql, action.task, payload);
  return { started: true, job_id: job.id, task };
}

/** An agent's pending action, on the timeline as it is stored. */
function proposeAction(
  sql: Sql,
  action: { action: string; params: Record<string, unknown>; agent_id: string },
): Promise<PendingAction> {
  return sql.begin(async (tx) => {
    const pending = await insertPendingAction(tx, action);
    await recordActionEvent(tx, pending, 'proposed', { agent: action.agent_id });
    return pending;
  }) as Promise<PendingAction>;
}

/** pending_action.proposed / approved / rejected on the timeline (actions are global: no space). */
function recordActionEvent(
  sql: Db,
  action: PendingAction,
  what: 'proposed' | 'approved' | 'rejected',
  actor: Actor,
): Promise<void> {
  const named =
    action.action === downstreamCallAction
      ? `call ${String(action.params.server)}.${String(action.params.tool)}`
      : `run ${action.action}`;
  return recordEvent(sql, {
    kind: `pending_action.${what}`,
    severity: what === 'proposed' ? 'notice' : 'info',
    title: `Action ${what}: ${named}`,
    subject: { type: 'pending_action', id: action.id },
    actor,
    data: { action: action.action, agent_id: action.agent_id },
  });
}

/** The action of a downstream MCP tool call waiting for approval (domains/mcp-servers); never a task. */
export const downstreamCallAction = 'mcp.call';

/** A downstream call an agent asked for: a pending action showing server, tool and arguments. */
export async function proposeDownstreamCall(
  sql: Sql,
  principal: AgentPrincipal,
  call: DownstreamCall & { server: string },
  config?: Pick<Config, 'alerts' | 'assistant'>,
): Promise<PendingAction> {
  const pending = await proposeAction(sql, {
    action: downstreamCallAction,
    params: { ...call },
    agent_id: principal.agentId,
  });
  if (config) {
    await raiseApprovalWaiting(sql, config, {
      target: { pending_action_id: pending.id },
      summary: `agent ${principal.name} asks to call ${call.server}.${call.tool}`,
      agent_id: principal.agentId,
    });
  }
  return pending;
}

/** A pending action as the assistant shows it in place, beside drafts of pending changes: what it would do. */
export async function describeActionDraft(
  sql: Sql,
  id: string,
): Promise<{ pending_action_id: string; action: string; entity_type: 'action'; summary: string } | null> {
  const action = await findPendingAction(sql, id);
  if (!action) return null;
  const params = action.params as { server?: unknown; tool?: unknown };
  const summary =
    action.action === downstreamCallAction
      ? `call ${String(params.server)}.${String(params.tool)}`
      : `run ${action.action}`;
  return { pending_action_id: action.id, action: action.action, entity_type: 'action', summary };
}

const audited = (action: PendingAction) => ({
  pending_change_id: null,
  entity_type: 'action',
  entity_id: action.id,
});

/** Approves once: the claim is one conditional update; a failure to enqueue reopens it with the error. */
export async function approveAction(
  sql: Sql,
  actions: readonly RunnableAction[],
  id: string,
  principal: Principal,
  /** The key that opens a downstream server's headers (an mcp.call action). */
  keys: KeyConfig,
): Promise<PendingAction> {
  const claimed = await claimPendingAction(sql, id);
  if (!claimed) {
    const current = await findPendingAction(sql, id);
    if (!current) throw hubError('ACTION_NOT_FOUND', id);
    throw hubError('ACTION_NOT_PENDING', `the action is ${current.status}, not pending`);
  }
  const actor = actorOf(principal);
  if (claimed.action === downstreamCallAction)
    return approveDownstreamCall(sql, keys, claimed, actor, timelineActor(principal));
  try {
    return await sql.begin(async (tx) => {
      const { action, payload } = actionPayload(actions, { action: claimed.action, params: claimed.params });
      const job = await enqueue(tx, action.task, payload);
      const approved = await markApproved(tx, id, { job_id: job.id }, actor);
      await recordActionEvent(tx, approved, 'approved', timelineActor(principal));
      await insertAuditEntry(tx, {
        ...audited(claimed),
        actor,
        action: 'approve',
        outcome: 'applied',
        detail: {
          action: claimed.action,
          params: claimed.params,
          agent_id: claimed.agent_id,
          job_id: job.id,
        },
      });
      return approved;
    });
  } catch (error) {
    const message = (error as Error).message;
    await sql.begin(async (tx) => {
      await reopenPendingAction(tx, id, message);
      await insertAuditEntry(tx, {
        ...audited(claimed),
        actor,
        action: 'approve',
        outcome: 'failed',
        detail: { action: claimed.action, error: message },
      });
    });
    throw error;
  }
}

/**
 * The claimed call is made once, whatever it answers: a downstream write is not retried behind the owner's back, so
 * a failure is its result (isError) rather than a reopened action.
 */
async function approveDownstreamCall(
  sql: Sql,
  keys: KeyConfig,
  claimed: PendingAction,
  actor: string,
  approver: Actor,
): Promise<PendingAction> {
  const call = claimed.params as unknown as DownstreamCall & { server: string };
  const result = await forwardCall({ sql, config: keys }, call, {
    actor: claimed.agent_id ?? actor,
    pending_action_id: claimed.id,
  });
  return sql.begin(async (tx) => {
    const approved = await markApproved(tx, claimed.id, { job_id: null, result }, actor);
    await recordActionEvent(tx, approved, 'approved', approver);
    await insertAuditEntry(tx, {
      ...audited(claimed),
      actor,
      action: 'approve',
      outcome: result.isError ? 'failed' : 'applied',
      detail: { action: claimed.action, server: call.server, tool: call.tool, agent_id: claimed.agent_id },
    });
    return approved;
  }) as Promise<PendingAction>;
}

export async function rejectAction(
  sql: Sql,
  id: string,
  principal: Principal,
  reason: string | null,
): Promise<PendingAction> {
  return sql.begin(async (tx) => {
    const actor = actorOf(principal);
    const rejected = await rejectPendingAction(tx, id, reason, actor);
    if (!rejected) {
      const current = await findPendingAction(tx, id);
      if (!current) throw hubError('ACTION_NOT_FOUND', id);
      throw hubError('ACTION_NOT_PENDING', `the action is ${current.status}, not pending`);
    }
    await insertAuditEntry(tx, {
      ...audited(rejected),
      actor,
      action: 'reject',
      outcome: 'rejected',
      detail: { action: rejected.action, params: rejected.params, agent_id: rejected.agent_id, reason },
    });
    await recordActionEvent(tx, rejected, 'rejected', timelineActor(principal));
    return rejected;
  });
}
