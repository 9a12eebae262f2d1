// The `alerts` setting: the web app's address as the owner's phone reaches it, for the links alerts carry, and the
// limits of the events other domains raise (a watched device's absence, the host's thresholds).
import type { Db } from '../../lib/db.ts';
import { defineSetting } from '../../lib/settings.ts';
import { readSetting } from '../settings/registry.ts';
import { AlertSettings, alertDefaults } from './schema.ts';

export const alertSettings = defineSetting({
  key: 'alerts',
  schema: AlertSettings,
  defaultValue: { web_url: null },
  description:
    "Alerts: the web app's address (https://hub.lan) their links point into (null sends no links); how long a " +
    'watched device may be absent (device_offline_minutes); the host thresholds (host_cpu_percent, ' +
    'host_memory_percent, host_disk_percent) and how long a figure stays over one (host_minutes)',
});

/** The setting with every limit filled in. */
export async function readAlertSettings(
  sql: Db,
): Promise<AlertSettings & Record<keyof typeof alertDefaults, number>> {
  return { ...alertDefaults, ...(await readSetting(sql, alertSettings)) };
}
