// Devices (README, Configuration).
import { type Env, integer, optionalCommand, schedule, text } from './env.ts';

export interface DevicesConfig {
  arpFile: string;
  /** null: off. */
  neighCommand: string | null;
  dhcpLeasesFile: string | null;
  scanCommand: string | null;
  scanTimeoutMs: number;
  /** null: no recurring scan. */
  scanSchedule: string | null;
}

export function devices(env: Env): DevicesConfig {
  return {
    arpFile: text(env, 'DEVICES_ARP_FILE') ?? '/proc/net/arp',
    neighCommand: optionalCommand(env, 'DEVICES_NEIGH_COMMAND', 'ip -j neigh'),
    dhcpLeasesFile: text(env, 'DHCP_LEASES_FILE'),
    scanCommand: optionalCommand(env, 'DEVICES_SCAN_COMMAND', null),
    scanTimeoutMs: integer(env, 'DEVICES_SCAN_TIMEOUT_MS', 60_000, 1000, 600_000),
    scanSchedule: schedule(env, 'DEVICES_SCAN_SCHEDULE', '*/5 * * * *'),
  };
}
