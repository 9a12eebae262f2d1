// speedtest.run: one measurement, recorded as a row (failed runs too), flagged and alerted when below a threshold.
// The schedule comes from the `speedtest` setting, read by the cron registry every minute, so a change applies at
// once; `enabled: false` stops the schedule only.

import { cronItem, type DomainCron, type DomainTask, runs } from '../../worker/contract.ts';
import { type RaisedAlert, raiseAlert } from '../alerts/raise.ts';
import { readSettingOrStoreDefault } from '../settings/registry.ts';
import { measure, recordRun } from './run.ts';
import { type SpeedtestResult, type SpeedtestSettings, speedtestRunTask } from './schema.ts';
import { speedtestSetting } from './setting.ts';

const mbps = (value: number | null) => (value === null ? '?' : `${Math.round(value * 10) / 10} Mbps`);

/** The alert of a result below a threshold: what was measured against what the owner expects. */
export function lowSpeedAlert(result: SpeedtestResult, settings: SpeedtestSettings): RaisedAlert {
  const expected = [
    settings.low_download_mbps !== null ? `download ${settings.low_download_mbps} Mbps` : null,
    settings.low_upload_mbps !== null ? `upload ${settings.low_upload_mbps} Mbps` : null,
  ].filter(Boolean);
  return {
    event: 'speedtest.slow',
    title: 'Internet speed below threshold',
    message:
      `Download ${mbps(result.download_mbps)}, upload ${mbps(result.upload_mbps)}, ping ` +
      `${result.ping_ms ?? '?'} ms (expected at least ${expected.join(' and ')})` +
      (result.server_name ? ` via ${result.server_name}` : ''),
    tags: ['warning', 'speedtest'],
    priority: 4,
    link: '/speed',
    data: { result_id: result.id, download_mbps: result.download_mbps, upload_mbps: result.upload_mbps },
  };
}

/** The alert of a run that measured nothing (no connection, the program failed). */
export function failedRunAlert(result: SpeedtestResult): RaisedAlert {
  return {
    event: 'speedtest.failed',
    title: 'Speed test failed',
    message: `The speed test measured nothing: ${result.error ?? 'no result'}`,
    tags: ['x', 'speedtest'],
    priority: 3,
    link: '/speed',
    data: { result_id: result.id, error: result.error },
  };
}

export const speedtestTasks: DomainTask[] = [
  runs(speedtestRunTask, (deps) => async (payload, helpers) => {
    const settings = await readSettingOrStoreDefault(deps.sql, speedtestSetting);
    const run = await measure(deps.config);
    const result = await deps.sql.begin(async (tx) => {
      const kept = await recordRun(tx, run, settings, {
        id: String(helpers.job.id),
        trigger: payload.trigger,
      });
      if (kept.status === 'failed') await raiseAlert(tx, deps, failedRunAlert(kept));
      if (kept.below_threshold) await raiseAlert(tx, deps, lowSpeedAlert(kept, settings));
      return kept;
    });
    if (result.status === 'failed') helpers.logger.warn(`speed test failed: ${result.error}`);
  }),
];

export const speedtestCron: DomainCron = () => [
  cronItem({
    id: 'speedtest',
    task: speedtestRunTask,
    schedule: async (deps) => {
      const settings = await readSettingOrStoreDefault(deps.sql, speedtestSetting);
      return settings.enabled ? settings.schedule : null;
    },
    payload: { trigger: 'schedule' },
  }),
];
