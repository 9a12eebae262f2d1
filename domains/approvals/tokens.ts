// Approval tokens: when a pending change or action is created, approval.waiting is raised with two one-time links,
// Approve and Reject (ntfy http action buttons; a link into the web app for targets without buttons). Each token is
// 32 random bytes, kept only as its SHA-256 digest, bound to one pending change or action and one decision, and works
// once before it expires (approvals.token_hours, 24 by default); using either spends both.
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config/index.ts';
import { hashToken } from '../../lib/secrets.ts';
import type { Db } from '../../plugins/db.ts';
import { raiseAlert } from '../alerts/raise.ts';
import type { AlertAction } from '../alerts/send.ts';
import { readSetting } from '../settings/registry.ts';
import { approvalBaseUrlSetting, approvalTokenHoursSetting } from './setting.ts';
import {
  type ApprovalTarget,
  insertApprovalToken,
  pruneApprovalTokens,
  spendApprovalToken,
} from './store.ts';

export type Decision = 'approve' | 'reject';

/** What is waiting, as the alert tells it. */
export interface Waiting {
  target: ApprovalTarget;
  /** One line: what is proposed, by whom. */
  summary: string;
  agent_id: string | null;
}

/** Two fresh tokens for `target`, one per decision. */
export async function mintApprovalTokens(
  sql: Db,
  target: ApprovalTarget,
  hours: number,
): Promise<Record<Decision, string>> {
  const expiresAt = new Date(Date.now() + hours * 3_600_000);
  const tokens = {
    approve: randomBytes(32).toString('base64url'),
    reject: randomBytes(32).toString('base64url'),
  };
  for (const decision of ['approve', 'reject'] as const) {
    await insertApprovalToken(sql, hashToken(tokens[decision]), target, decision, expiresAt);
  }
  return tokens;
}

/** The target and decision a token stands for, spending it (and its sibling); null when it works no more. */
export async function redeemApprovalToken(sql: Db, token: string) {
  return spendApprovalToken(sql, hashToken(token));
}

/**
 * Raises approval.waiting for a new pending change or action: with ALERT_URL set and the hub's address known, the
 * alert carries the Approve and Reject links (`actions`, ntfy's http action shape) and a link into the web app.
 */
export async function raiseApprovalWaiting(
  sql: Db,
  config: Pick<Config, 'alerts' | 'assistant'>,
  waiting: Waiting,
): Promise<void> {
  const base = ((await readSetting(sql, approvalBaseUrlSetting)) ?? config.assistant.hubUrl)?.replace(
    /\/+$/,
    '',
  );
  const kind = waiting.target.pending_change_id ? 'pending change' : 'pending action';
  let links: { link?: string; actions?: AlertAction[] } = {};
  if (base) {
    await pruneApprovalTokens(sql);
    const tokens = await mintApprovalTokens(
      sql,
      waiting.target,
      await readSetting(sql, approvalTokenHoursSetting),
    );
    const button = (label: string, decision: Decision): AlertAction => ({
      action: 'http',
      label,
      url: `${base}/api/approvals/${tokens[decision]}`,
      method: 'POST',
    });
    links = {
      link: `${base}/approvals`,
      actions: [button('Approve', 'approve'), button('Reject', 'reject')],
    };
  }
  await raiseAlert(
    sql,
    { config },
    {
      event: 'approval.waiting',
      title: 'Approval waiting',
      message: `A ${kind} waits for your decision: ${waiting.summary}`,
      tags: ['hourglass', 'approval-waiting'],
      priority: 4,
      link: links.link ?? '/approvals',
      actions: links.actions,
      data: { ...waiting.target, agent_id: waiting.agent_id, summary: waiting.summary, ...links },
    },
  );
}
