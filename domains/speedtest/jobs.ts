// speedtest.run: one measurement, recorded as a row (failed runs too), flagged and alerted when below a threshold.
// The schedule comes from the `speedtest` setting, read by the cron registry every minute, so a change applies at
// once; `enabled: false` stops the schedule only.
import type { DomainCron } from '../../worker/cron.ts';
import type { DomainTasks } from '../../worker/tasks.ts';
import { readSettingOrStoreDefault } from '../settings/registry.ts';
import { measure, recordRun } from './run.ts';
import { speedtestSetting } from './setting.ts';

export const speedtestTasks: DomainTasks = (deps) => ({
  'speedtest.run': async (payload, helpers) => {
    const settings = await readSettingOrStoreDefault(deps.sql, speedtestSetting);
    const run = await measure(deps.config);
    const result = await recordRun(deps.sql, run, settings, {
      id: String(helpers.job.id),
      trigger: payload.trigger,
    });
    if (result.status === 'failed') helpers.logger.warn(`speed test failed: ${result.error}`);
  },
});

export const speedtestCron: DomainCron = () => [
  {
    id: 'speedtest',
    task: 'speedtest.run',
    schedule: async (deps) => {
      const settings = await readSettingOrStoreDefault(deps.sql, speedtestSetting);
      return settings.enabled ? settings.schedule : null;
    },
    payload: { trigger: 'schedule' },
  },
];
