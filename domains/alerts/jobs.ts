// alerts.deliver: one alert to one target; the target's answer is recorded on every attempt. A failure is retried
// with graphile-worker's backoff (up to the task's attempts) unless asking again cannot help; each delivery is its
// own job, so a dead target delays nobody else. alerts.repeat (every minute): open problems sent again where their
// rule sets repeat_minutes. job.failed: raised for each job the worker gives up (the module's onJobFailed hook).
import type { Db } from '../../lib/db.ts';
import {
  cronItem,
  type DomainCron,
  type DomainTask,
  type JobDeps,
  type JobFailedHook,
  runs,
} from '../../worker/contract.ts';
import { PermanentJobError } from '../../worker/errors.ts';
import { readSetting } from '../settings/registry.ts';
import { recordEvent } from '../timeline/record.ts';
import { isQuiet, queueDeliveries, raiseAlert } from './raise.ts';
import { deliverTask, repeatTask } from './schema.ts';
import { type AlertAction, type Outgoing, SendError, send } from './send.ts';
import { alertSettings } from './setting.ts';
import { type DeliveryToSend, dueRepeats, findDeliveryToSend, recordAttempt } from './store.ts';
import { environmentTargetId, openTarget } from './targets.ts';

/** The link made absolute with the web app's address (none without one). */
async function absoluteLink(sql: Db, link: string | null): Promise<string | null> {
  if (!link) return null;
  if (/^https?:\/\//.test(link)) return link;
  const { web_url } = await readSetting(sql, alertSettings);
  return web_url ? `${web_url.replace(/\/+$/, '')}${link.startsWith('/') ? '' : '/'}${link}` : null;
}

export async function outgoing(sql: Db, delivery: DeliveryToSend): Promise<Outgoing> {
  const { alert } = delivery;
  return {
    deliveryId: delivery.id,
    alertId: alert.id,
    event: alert.event,
    title: alert.title,
    message: alert.message,
    priority: alert.priority,
    tags: alert.tags,
    link: await absoluteLink(sql, alert.link),
    data: alert.data,
    actions: alert.actions as AlertAction[],
    resolves: alert.resolves,
    at: new Date(alert.created_at),
  };
}

/** One attempt of one delivery; throws to be retried. */
export async function deliver(deps: JobDeps, deliveryId: string, attempt: { last: boolean }): Promise<void> {
  const delivery = await findDeliveryToSend(deps.sql, deliveryId);
  if (!delivery || delivery.status === 'sent' || delivery.status === 'quiet') return;
  const target = await openTarget(deps, delivery.target_id ?? environmentTargetId);
  if (!target) {
    await recordAttempt(deps.sql, deliveryId, {
      status: 'failed',
      answer_status: null,
      answer: 'target removed',
    });
    return;
  }
  try {
    const answer = await send(
      target,
      await outgoing(deps.sql, delivery),
      deps.config.dashboard.upstreamTimeoutMs,
    );
    await deps.sql.begin(async (tx) => {
      await recordAttempt(tx, deliveryId, {
        status: 'sent',
        answer_status: answer.status,
        answer: answer.answer,
      });
      await recordEvent(tx, {
        kind: 'alert.sent',
        title: `Alert sent to ${target.name} (${target.kind}): ${delivery.alert.title}`,
        subject: { type: 'alert', id: delivery.alert.id },
        actor: 'system',
        data: {
          event: delivery.alert.event,
          delivery_id: deliveryId,
          target: target.name,
          target_kind: target.kind,
        },
      });
    });
  } catch (error) {
    const failure = error instanceof SendError ? error : new SendError((error as Error).message, null, false);
    const final = failure.permanent || attempt.last;
    await recordAttempt(deps.sql, deliveryId, {
      status: final ? 'failed' : 'retrying',
      answer_status: failure.status,
      answer: failure.message,
    });
    const message = `alert to ${target.name} (${target.kind}) not delivered: ${failure.message}`;
    throw failure.permanent ? new PermanentJobError(message) : new Error(message);
  }
}

/** Queues the repeats that are due; how many deliveries. */
export async function repeatOpenProblems(deps: JobDeps, at = new Date()): Promise<number> {
  let queued = 0;
  for (const due of await dueRepeats(deps.sql)) {
    const quiet = isQuiet(due.quiet_hours, due.priority, at);
    await deps.sql.begin(async (tx) => {
      queued += await queueDeliveries(
        tx,
        due.alert_id,
        due.targets.map((target) => ({
          ...target,
          target_id: target.target_id ?? environmentTargetId,
          quiet,
        })),
        due.repeat,
      );
    });
  }
  return queued;
}

export const alertTasks: DomainTask[] = [
  runs(deliverTask, (deps) => async (payload, helpers) => {
    await deliver(deps, payload.delivery_id, { last: helpers.job.attempts >= helpers.job.max_attempts });
  }),
  runs(repeatTask, (deps) => async (_payload, helpers) => {
    const queued = await repeatOpenProblems(deps);
    if (queued > 0) helpers.logger.info(`alerts.repeat: ${queued} repeated`);
  }),
];

export const alertCron: DomainCron = () => [
  cronItem({ id: 'alerts.repeat', task: repeatTask, schedule: '* * * * *', payload: {} }),
];

/**
 * job.failed for a job given up. Not for an alert's own delivery: its failure is in the deliveries list already, and
 * an alert about it would go to the same targets, one of which just failed.
 */
export const jobFailedAlert: JobFailedHook = async (deps, failure) => {
  if (failure.task === deliverTask.name) return;
  await raiseAlert(deps.sql, deps, {
    event: 'job.failed',
    title: `Job ${failure.task} failed`,
    message:
      `Job ${failure.id} (${failure.task}) was given up after ${failure.attempts} of ${failure.max_attempts} ` +
      `attempts: ${failure.error}`,
    tags: ['x', 'job'],
    priority: 3,
    link: `/api/jobs/${failure.id}`,
    data: { job_id: failure.id, task: failure.task, attempts: failure.attempts, error: failure.error },
  });
};
