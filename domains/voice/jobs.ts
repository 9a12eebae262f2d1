// voice.purge: once a day, clips older than the retention go, file and row.
import { cronItem, type DomainCron, type DomainTask, runs } from '../../worker/contract.ts';
import { readSetting } from '../settings/registry.ts';
import { purgeClips } from './clips.ts';
import { voicePurgeTask } from './schema.ts';
import { voiceSetting } from './setting.ts';

export const voiceTasks: DomainTask[] = [
  runs(voicePurgeTask, (deps) => async (_payload, helpers) => {
    const settings = await readSetting(deps.sql, voiceSetting);
    const removed = await purgeClips(
      deps.sql,
      deps.config.voice.clipsDir,
      settings.retention_days,
      new Date(),
    );
    if (removed > 0)
      helpers.logger.info(`deleted ${removed} voice clips older than ${settings.retention_days} days`);
  }),
];

export const voiceCron: DomainCron = () => [
  cronItem({ id: 'voice.purge', task: voicePurgeTask, schedule: '23 3 * * *', payload: {} }),
];
