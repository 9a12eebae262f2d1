// devices.scan: read the neighbour sources and apply what they show in one transaction. Recurs on
// DEVICES_SCAN_SCHEDULE (every 5 minutes by default) through the cron registry. Each scan also judges the watched
// devices: one absent for the alerts setting's device_offline_minutes raises device.offline (once), and its return
// device.online, which resolves it.
import type { JobHelpers } from 'graphile-worker';
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { openProblems, type RaisedAlert, raiseAlert } from '../alerts/raise.ts';
import { readAlertSettings } from '../alerts/setting.ts';
import { type NewEvent, recordEvent } from '../timeline/record.ts';
import { isLocallyAdministered, vendorOf } from './mac.ts';
import { gather } from './scan.ts';
import { devicesScanTask } from './schema.ts';
import {
  applyScan,
  type ScannedDevice,
  type SeenDevice,
  type WatchedDevice,
  watchedDevices,
} from './store.ts';

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
  // The scan and its alerts commit together.
  const { added, absent } = await deps.sql.begin(async (tx) => {
    const result = await applyScan(tx, devices);
    for (const device of result.devices) {
      const alert = deviceAlert(device);
      if (alert) await raiseAlert(tx, deps, alert);
      if (alert) await recordEvent(tx, deviceEvent(device.mac, alert));
    }
    const { device_offline_minutes } = await readAlertSettings(tx);
    const open = await openProblems(tx, 'device:');
    for (const device of await watchedDevices(tx, device_offline_minutes)) {
      const alert = watchAlert(device, open.has(subjectOf(device)), device_offline_minutes);
      if (alert) await raiseAlert(tx, deps, alert);
      if (alert) await recordEvent(tx, deviceEvent(device.mac, alert));
    }
    return result;
  });
  return { seen: devices.length, added, absent };
}

const named = (device: Pick<ScannedDevice, 'hostname' | 'vendor' | 'mac'> & { name?: string | null }) =>
  device.name ?? device.hostname ?? device.vendor ?? device.mac;
const subjectOf = (device: { mac: string }) => `device:${device.mac}`;

// The timeline's kinds and severities of the device alerts.
const timelineKinds: Record<string, Pick<NewEvent, 'kind' | 'severity'>> = {
  'device.new': { kind: 'device.first_seen', severity: 'notice' },
  'device.ip_changed': { kind: 'device.ip_changed', severity: 'info' },
  'device.offline': { kind: 'device.offline', severity: 'warning' },
  'device.online': { kind: 'device.back', severity: 'info' },
};

/** The timeline's record of a device alert: about the device, by the hub. */
export function deviceEvent(mac: string, alert: RaisedAlert): NewEvent {
  const { data = {} } = alert;
  const title =
    alert.event === 'device.new'
      ? `New device ${mac}${data.vendor ? ` (${data.vendor})` : data.hostname ? ` (${data.hostname})` : ''}`
      : alert.title;
  return {
    ...(timelineKinds[alert.event] ?? { kind: alert.event }),
    title,
    subject: { type: 'device', id: mac },
    actor: 'system',
    data,
  };
}

/** device.offline for a watched device absent long enough (once), device.online when it is back; else null. */
export function watchAlert(
  device: WatchedDevice,
  alerted: boolean,
  offlineMinutes: number,
): RaisedAlert | null {
  const data = { mac: device.mac, ip: device.ip, hostname: device.hostname, vendor: device.vendor };
  const seen = device.last_seen ? `last seen ${device.last_seen.toISOString()}` : 'never seen';
  if (device.offline && !alerted) {
    return {
      event: 'device.offline',
      title: `${named(device)} is offline`,
      message: `${device.mac}${device.ip ? ` (${device.ip})` : ''} has been absent from scans for ${offlineMinutes} min or more (${seen}).`,
      tags: ['electric_plug', 'device'],
      priority: 4,
      link: '/devices',
      data: { ...data, last_seen: device.last_seen?.toISOString() ?? null },
      subject: subjectOf(device),
    };
  }
  if (device.present && alerted) {
    return {
      event: 'device.online',
      title: `${named(device)} is back online`,
      message: `${device.mac}${device.ip ? ` at ${device.ip}` : ''} is seen again.`,
      tags: ['white_check_mark', 'device'],
      priority: 3,
      link: '/devices',
      data,
      subject: subjectOf(device),
      resolves: true,
    };
  }
  return null;
}

/** device.new for a first sighting, device.ip_changed for a known device at another address. */
export function deviceAlert(device: ScannedDevice): RaisedAlert | null {
  const data = {
    mac: device.mac,
    ip: device.ip,
    hostname: device.hostname,
    vendor: device.vendor,
    random_mac: device.random_mac,
  };
  if (device.added) {
    return {
      event: 'device.new',
      title: `New device on the network: ${named(device)}`,
      message:
        `${device.mac} at ${device.ip}` +
        `${device.vendor ? ` (${device.vendor})` : device.random_mac ? ' (random MAC address)' : ''}` +
        `${device.hostname ? `, named ${device.hostname}` : ''}, first seen now.`,
      tags: ['new', 'device'],
      priority: 3,
      link: '/devices',
      data,
    };
  }
  if (device.previous_ip && device.previous_ip !== device.ip) {
    return {
      event: 'device.ip_changed',
      title: `${named(device)} changed address`,
      message: `${device.mac} moved from ${device.previous_ip} to ${device.ip}.`,
      tags: ['arrows_counterclockwise', 'device'],
      priority: 2,
      link: '/devices',
      data: { ...data, previous_ip: device.previous_ip },
    };
  }
  return null;
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
