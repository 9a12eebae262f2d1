// The `hub_backup` setting: when the hub backs itself up and how many archives it keeps. The default runs daily at a
// night-time minute chosen once at random and stored on first use.
import { defineSetting } from '../../lib/settings.ts';
import { HubBackupSettings } from './schema.ts';

export const hubBackupSetting = defineSetting({
  key: 'hub_backup',
  schema: HubBackupSettings,
  defaultValue: () => ({
    enabled: true,
    schedule: `${Math.floor(Math.random() * 60)} ${1 + Math.floor(Math.random() * 4)} * * *`,
    keep_daily: 7,
    keep_weekly: 4,
  }),
  description: 'Backups of the hub itself: schedule (5-field cron), archives kept (last N daily, M weekly)',
});
