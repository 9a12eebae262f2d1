// A target's Test button: a test alert sent now, in the target's own shape, answering what the upstream said.
// Nothing is recorded as a delivery.
import { randomUUID } from 'node:crypto';
import { hubError } from '../../lib/errors.ts';
import { outgoing } from './jobs.ts';
import type { TestAnswer } from './schema.ts';
import { SendError, send } from './send.ts';
import { environmentTargetId, openTarget, type TargetDeps } from './targets.ts';

export async function sendTestAlert(deps: TargetDeps, targetId: string): Promise<TestAnswer> {
  const target = await openTarget(deps, targetId);
  if (!target) throw hubError('ALERT_TARGET_NOT_FOUND', targetId);
  const id = randomUUID();
  const test = await outgoing(deps.sql, {
    id,
    status: 'queued',
    target_id: target.id === environmentTargetId ? null : target.id,
    target_name: target.name,
    target_kind: target.kind,
    alert: {
      id,
      event: 'alert.test',
      title: 'Test alert from ops-hub',
      message: `This is a test of the alert target **${target.name}**.`,
      priority: 3,
      tags: ['test_tube'],
      link: '/settings/alerts',
      data: {},
      actions: [],
      subject: null,
      resolves: false,
      suppressed: null,
      created_at: new Date(),
    },
  });
  try {
    return { ok: true, ...(await send(target, test, deps.config.dashboard.upstreamTimeoutMs)) };
  } catch (error) {
    if (!(error instanceof SendError)) throw error;
    return { ok: false, status: error.status, answer: error.message };
  }
}
