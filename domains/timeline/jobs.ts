// timeline.purge: once a day, events older than the retention go. job.failed: each job the worker gives up is on
// the timeline (the module's onJobFailed hook), the alerts domain raising its alert apart.
import { Type } from 'typebox';
import {
  cronItem,
  type DomainCron,
  type DomainTask,
  defineTask,
  type JobFailedHook,
  runs,
} from '../../worker/contract.ts';
import { readSetting } from '../settings/registry.ts';
import { recordEvent } from './record.ts';
import { timelineRetentionSetting } from './setting.ts';
import { purgeEvents } from './store.ts';

export const timelinePurgeTask = defineTask({
  name: 'timeline.purge',
  payload: Type.Object({}),
  description: 'Deletes timeline events older than the timeline.retention_days setting',
});

export const timelineTasks: DomainTask[] = [
  runs(timelinePurgeTask, (deps) => async (_payload, helpers) => {
    const days = await readSetting(deps.sql, timelineRetentionSetting);
    const removed = await purgeEvents(deps.sql, days);
    if (removed > 0) helpers.logger.info(`deleted ${removed} timeline events older than ${days} days`);
  }),
];

export const timelineCron: DomainCron = () => [
  cronItem({ id: 'timeline.purge', task: timelinePurgeTask, schedule: '47 3 * * *', payload: {} }),
];

export const jobFailedEvent: JobFailedHook = async (deps, failure) => {
  await recordEvent(deps.sql, {
    kind: 'job.failed',
    severity: 'warning',
    title: `Job ${failure.task} failed: ${failure.error}`,
    subject: { type: 'job', id: failure.id },
    actor: 'system',
    data: {
      task: failure.task,
      attempts: failure.attempts,
      max_attempts: failure.max_attempts,
      error: failure.error,
    },
  });
};
