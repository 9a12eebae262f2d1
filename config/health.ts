// Service health, alerts and discovery (README, Configuration).
import { existsSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import type { AlertFormat } from '../lib/notify.ts';
import { ConfigError, type Env, httpUrl, integer, oneOf, schedule, secret, text } from './env.ts';

export interface HealthConfig {
  /** Checks a health.check run makes at once. */
  checkConcurrency: number;
  /** A bearer token that may read the metrics besides the owner's. */
  metricsToken: string | null;
  /** The ping program ping checks run (iputils' ping, or one that prints like it). */
  pingCommand: string;
  /** A PEM file of CA certificates checks trust besides the system's (a home lab's own CA), or null. */
  caFile: string | null;
}

export interface AlertsConfig {
  /** null: no alerts. */
  url: string | null;
  format: AlertFormat;
  token: string | null;
}

export interface DiscoveryConfig {
  /** null: the host's own IPv4 networks, each cut to its /24. */
  cidrs: string[] | null;
  ports: number[];
  concurrency: number;
  timeoutMs: number;
  schedule: string | null;
}

/** Common home-lab ports the LAN sweep tries by default. */
export const defaultDiscoveryPorts = [
  80, 443, 8006, 8080, 8443, 8123, 3000, 3001, 5000, 5001, 8000, 8081, 8096, 8384, 8888, 9000, 9090, 9443,
  19999, 32400,
];

/** IPv4 ranges to sweep; anything larger than a /16 is refused (65,536 addresses times every port is enough). */
function cidrs(env: Env, name: string): string[] | null {
  const raw = text(env, name);
  if (raw === null) return null;
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
      try {
        parsed = ipaddr.parseCIDR(item.includes('/') ? item : `${item}/32`);
      } catch {
        throw new ConfigError(
          name,
          `must be a comma list of IPv4 ranges like 192.168.1.0/24 (got "${item}")`,
        );
      }
      const [address, prefix] = parsed;
      if (address.kind() !== 'ipv4')
        throw new ConfigError(name, `only IPv4 ranges are swept (got "${item}")`);
      if (prefix < 16) throw new ConfigError(name, `range ${item} is larger than a /16 and is refused`);
      return `${ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${prefix}`).toString()}/${prefix}`;
    });
}

function ports(env: Env, name: string, fallback: number[]): number[] {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const list = raw.split(',').map((item) => item.trim());
  const bad = list.find((item) => !/^\d+$/.test(item) || Number(item) < 1 || Number(item) > 65535);
  if (bad !== undefined || list.length === 0) {
    throw new ConfigError(name, `must be a comma list of ports from 1 to 65535 (got "${raw}")`);
  }
  return [...new Set(list.map(Number))];
}

function existingFile(env: Env, name: string): string | null {
  const file = text(env, name);
  if (file !== null && !existsSync(file))
    throw new ConfigError(name, `names a file that does not exist ("${file}")`);
  return file;
}

export function health(env: Env): HealthConfig {
  return {
    checkConcurrency: integer(env, 'HEALTH_CHECK_CONCURRENCY', 16, 1, 256),
    metricsToken: secret(env, 'METRICS_TOKEN'),
    pingCommand: text(env, 'HEALTH_PING_COMMAND') ?? 'ping',
    caFile: existingFile(env, 'HEALTH_CA_FILE'),
  };
}

export function alerts(env: Env): AlertsConfig {
  return {
    url: text(env, 'ALERT_URL') === null ? null : httpUrl(env, 'ALERT_URL', ''),
    format: oneOf(env, 'ALERT_FORMAT', ['json', 'ntfy'] as const, 'json'),
    token: secret(env, 'ALERT_TOKEN'),
  };
}

export function discovery(env: Env): DiscoveryConfig {
  return {
    cidrs: cidrs(env, 'DISCOVERY_CIDRS'),
    ports: ports(env, 'DISCOVERY_PORTS', defaultDiscoveryPorts),
    concurrency: integer(env, 'DISCOVERY_CONCURRENCY', 128, 1, 1024),
    timeoutMs: integer(env, 'DISCOVERY_TIMEOUT_MS', 1500, 100, 60_000),
    schedule: schedule(env, 'DISCOVERY_SCHEDULE', null),
  };
}
