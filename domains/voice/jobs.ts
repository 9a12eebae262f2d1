// voice.purge: once a day, clips older than the retention go, file and row.
import type { DomainCron } from '../../worker/cron.ts';
import type { DomainTasks } from '../../worker/tasks.ts';
import { readSetting } from '../settings/registry.ts';
import { purgeClips } from './clips.ts';
import { voiceSetting } from './setting.ts';

export const voiceTasks: DomainTasks = (deps) => ({
  'voice.purge': async (_payload, helpers) => {
    const settings = await readSetting(deps.sql, voiceSetting);
    const removed = await purgeClips(
      deps.sql,
      deps.config.voice.clipsDir,
      settings.retention_days,
      new Date(),
    );
    if (removed > 0)
      helpers.logger.info(`deleted ${removed} voice clips older than ${settings.retention_days} days`);
  },
});

export const voiceCron: DomainCron = () => [
  { id: 'voice.purge', task: 'voice.purge', schedule: '23 3 * * *', payload: {} },
];
