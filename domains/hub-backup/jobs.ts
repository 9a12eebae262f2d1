// hub.backup: an archive of the hub, on the schedule of the `hub_backup` setting (read by the cron registry every
// minute, so a change applies at once) or when the owner runs it. hub.backup-check: daily, raises backup.stale when
// no run succeeded within two days of the schedule.
import { cronItem, type DomainCron, type DomainTask, runs } from '../../worker/contract.ts';
import { readSettingOrStoreDefault } from '../settings/registry.ts';
import { checkStale, runBackup } from './run.ts';
import { hubBackupCheckTask, hubBackupTask } from './schema.ts';
import { hubBackupSetting } from './setting.ts';

export const hubBackupTasks: DomainTask[] = [
  runs(hubBackupTask, (deps) => async (payload, helpers) => {
    const run = await runBackup(deps.sql, deps.config, {
      trigger: payload.trigger ?? 'manual',
      log: helpers.logger,
    });
    helpers.logger.info(
      `backup written: ${run.file_name} (${run.size_bytes} bytes in ${run.duration_ms} ms)` +
        (run.removed.length ? `; retention removed ${run.removed.join(', ')}` : ''),
    );
  }),
  runs(hubBackupCheckTask, (deps) => async () => {
    await checkStale(deps.sql, deps.config, new Date());
  }),
];

export const hubBackupCron: DomainCron = () => [
  cronItem({
    id: 'hub-backup',
    task: hubBackupTask,
    schedule: async (deps) => {
      const settings = await readSettingOrStoreDefault(deps.sql, hubBackupSetting);
      return settings.enabled ? settings.schedule : null;
    },
    payload: { trigger: 'schedule' },
  }),
  cronItem({ id: 'hub-backup-check', task: hubBackupCheckTask, schedule: '40 12 * * *', payload: {} }),
];
