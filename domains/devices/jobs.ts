// devices.scan: read the neighbour sources and apply what they show in one transaction. Recurs on
// DEVICES_SCAN_SCHEDULE (every 5 minutes by default) through the cron registry.
import type { JobHelpers } from 'graphile-worker';
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { isLocallyAdministered, vendorOf } from './mac.ts';
import { gather } from './scan.ts';
import { devicesScanTask } from './schema.ts';
import { applyScan, type SeenDevice } from './store.ts';

export async function scanDevices(deps: JobDeps): Promise<{ seen: number; added: number; absent: number }> {
  const { seen, hostnames } = await gather(deps.config);
  const devices: SeenDevice[] = [];
  for (const sighting of seen.values()) {
    const random = isLocallyAdministered(sighting.mac);
    devices.push({
      mac: sighting.mac,
      ip: sighting.ip,
      hostname: hostnames.get(sighting.mac) ?? null,
      vendor: random ? null : ((await vendorOf(sighting.mac)) ?? sighting.vendorHint ?? null),
      random_mac: random,
    });
  }
  const result = await deps.sql.begin((tx) => applyScan(tx, devices));
  return { seen: devices.length, ...result };
}

export const devicesTasks: DomainTask[] = [
  runs(devicesScanTask, (deps) => async (_payload, helpers: JobHelpers) => {
    const result = await scanDevices(deps);
    helpers.logger.info(
      `devices.scan: ${result.seen} seen, ${result.added} new, ${result.absent} now absent`,
    );
  }),
];

export const devicesCron: DomainCron = (deps) =>
  deps.config.devices.scanSchedule
    ? [
        cronItem({
          id: 'devices.scan',
          task: devicesScanTask,
          schedule: deps.config.devices.scanSchedule,
          payload: {},
        }),
      ]
    : [];
