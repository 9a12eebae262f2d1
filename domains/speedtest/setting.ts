// The `speedtest` setting: the schedule and the low-speed thresholds. The default runs hourly at a minute chosen once
// at random (never :00, when tests from everywhere crowd the servers) and stored on first use.
import { defineSetting } from '../../lib/settings.ts';
import { SpeedtestSettings } from './schema.ts';

export const speedtestSetting = defineSetting({
  key: 'speedtest',
  schema: SpeedtestSettings,
  defaultValue: () => ({
    enabled: true,
    schedule: `${1 + Math.floor(Math.random() * 59)} * * * *`,
    low_download_mbps: null,
    low_upload_mbps: null,
  }),
  description: 'Speed-test schedule (5-field cron) and the thresholds below which a result is flagged',
});
