// Dashboard (README, Configuration): the upstreams the cards read and the cards' own settings.
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  ConfigError,
  decimal,
  type Env,
  flag,
  httpUrl,
  integer,
  oneOf,
  optionalUrl,
  secret,
  text,
} from './env.ts';

export interface DashboardConfig {
  /** Time limit of one call to a configured upstream (weather, Proxmox, Shlink). */
  upstreamTimeoutMs: number;
  weather: {
    url: string;
    latitude: number | null;
    longitude: number | null;
    units: 'metric' | 'imperial';
    timezone: string;
  };
  host: { proc: string; sys: string; mounts: string[]; sampleSeconds: number };
  pve: {
    url: string | null;
    token: string | null;
    caFile: string | null;
    tlsInsecure: boolean;
    cacheSeconds: number;
  };
  storageWatchPercent: number;
  storageAttentionPercent: number;
  shlink: { url: string | null; apiKey: string | null };
  /** Seconds between the dashboard stream's heartbeats. */
  heartbeatSeconds: number;
}

export function dashboard(env: Env): DashboardConfig {
  const latitude = decimal(env, 'WEATHER_LATITUDE', -90, 90);
  const longitude = decimal(env, 'WEATHER_LONGITUDE', -180, 180);
  if ((latitude === null) !== (longitude === null)) {
    throw new ConfigError(
      latitude === null ? 'WEATHER_LATITUDE' : 'WEATHER_LONGITUDE',
      'must be set too: a place needs both',
    );
  }
  const timezone = text(env, 'WEATHER_TIMEZONE') ?? 'auto';
  if (timezone !== 'auto' && !Intl.supportedValuesOf('timeZone').includes(timezone) && timezone !== 'UTC') {
    throw new ConfigError(
      'WEATHER_TIMEZONE',
      `must be an IANA time zone such as Europe/Berlin, or auto (got "${timezone}")`,
    );
  }
  const mounts = (text(env, 'HOST_MOUNTS') ?? '/')
    .split(',')
    .map((mount) => mount.trim())
    .filter(Boolean);
  const badMount = mounts.find((mount) => !mount.startsWith('/'));
  if (badMount !== undefined) {
    throw new ConfigError(
      'HOST_MOUNTS',
      `must be a comma-separated list of absolute paths (got "${badMount}")`,
    );
  }
  const pveUrl = optionalUrl(env, 'PVE_URL');
  const pveToken = secret(env, 'PVE_TOKEN');
  if (pveToken !== null && !/^[^@\s]+@[^!\s]+![^=\s]+=\S+$/.test(pveToken)) {
    throw new ConfigError('PVE_TOKEN', 'must look like USER@REALM!TOKENID=SECRET');
  }
  if ((pveUrl === null) !== (pveToken === null)) {
    throw new ConfigError(
      pveUrl === null ? 'PVE_URL' : 'PVE_TOKEN',
      'must be set too: the Proxmox cards need PVE_URL and PVE_TOKEN',
    );
  }
  const caFile = text(env, 'PVE_CA_FILE');
  if (caFile !== null && !existsSync(caFile)) {
    throw new ConfigError('PVE_CA_FILE', `names a file that does not exist ("${caFile}")`);
  }
  const watch = integer(env, 'STORAGE_WATCH_PERCENT', 80, 1, 100);
  const attention = integer(env, 'STORAGE_ATTENTION_PERCENT', 90, 1, 100);
  if (watch > attention) {
    throw new ConfigError(
      'STORAGE_WATCH_PERCENT',
      `must not be above STORAGE_ATTENTION_PERCENT (${attention})`,
    );
  }
  const shlinkUrl = optionalUrl(env, 'SHLINK_URL');
  const shlinkKey = secret(env, 'SHLINK_API_KEY');
  if ((shlinkUrl === null) !== (shlinkKey === null)) {
    throw new ConfigError(
      shlinkUrl === null ? 'SHLINK_URL' : 'SHLINK_API_KEY',
      'must be set too: the link shortener needs SHLINK_URL and SHLINK_API_KEY',
    );
  }
  return {
    upstreamTimeoutMs: integer(env, 'UPSTREAM_TIMEOUT_MS', 5000, 100, 120_000),
    weather: {
      url: httpUrl(env, 'WEATHER_URL', 'https://api.open-meteo.com').replace(/\/+$/, ''),
      latitude,
      longitude,
      units: oneOf(env, 'WEATHER_UNITS', ['metric', 'imperial'] as const, 'metric'),
      timezone,
    },
    host: {
      proc: path.resolve(text(env, 'HOST_PROC') ?? '/proc'),
      sys: path.resolve(text(env, 'HOST_SYS') ?? '/sys'),
      mounts,
      sampleSeconds: integer(env, 'HOST_SAMPLE_SECONDS', 5, 1, 300),
    },
    pve: {
      url: pveUrl,
      token: pveToken,
      caFile,
      tlsInsecure: flag(env, 'PVE_TLS_INSECURE'),
      cacheSeconds: integer(env, 'PVE_CACHE_SECONDS', 30, 1, 3600),
    },
    storageWatchPercent: watch,
    storageAttentionPercent: attention,
    shlink: { url: shlinkUrl, apiKey: shlinkKey },
    heartbeatSeconds: integer(env, 'DASHBOARD_HEARTBEAT_SECONDS', 15, 1, 3600),
  };
}
