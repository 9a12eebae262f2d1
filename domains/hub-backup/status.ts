// The hub's own backups as the dashboard's backups card shows them: the last few runs (state, time, size) and
// whether the last success is older than the schedule allows. Judged like the Proxmox backups beside them (the run
// the schedule expected before now minus the grace must have succeeded), except that a run expected before the hub
// was set up, or with backups turned off, is not missed.
import type { Db } from '../../lib/db.ts';
import { type StalenessRules, staleness } from '../backups/staleness.ts';
import { readSettingOrStoreDefault } from '../settings/registry.ts';
import type { HubBackupStatus } from './schema.ts';
import { hubBackupSetting } from './setting.ts';
import { installedAt, lastSuccessfulRun, recentRuns } from './store.ts';

const shownRuns = 5;

export async function hubBackupStatus(sql: Db, now: Date, rules: StalenessRules): Promise<HubBackupStatus> {
  const [runs, lastSuccess, installed, settings] = await Promise.all([
    recentRuns(sql, shownRuns),
    lastSuccessfulRun(sql),
    installedAt(sql),
    readSettingOrStoreDefault(sql, hubBackupSetting),
  ]);
  const schedule = settings.enabled ? settings.schedule : null;
  const judged = schedule ? staleness(lastSuccess, schedule, now, rules) : null;
  const missed =
    judged?.stale === true &&
    installed !== null &&
    judged.expectedSince !== null &&
    installed <= judged.expectedSince;
  return {
    runs: runs.map(({ started_at, finished_at, state, size_bytes, duration_ms }) => ({
      started_at: started_at.toISOString(),
      finished_at: finished_at.toISOString(),
      state,
      size_bytes,
      duration_ms,
    })),
    last_success_at: lastSuccess?.toISOString() ?? null,
    schedule,
    stale: missed,
    stale_reason: missed ? (judged?.reason ?? null) : null,
  };
}
