// The one place the cards, jobs and runners get an upstream's settings: from the environment when it sets that
// integration (environment variables win), else from the integration the owner stored in the browser, read at each
// call so a change applies at once. Other domains call `integrationSettings`; nothing else reads the stored rows.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import type { AssistantRunnerConfig as AssistantConfig } from '../../config/assistant.ts';
import type { LinkdingConfig } from '../../config/capture.ts';
import type { Config } from '../../config/index.ts';
import type { SttConfig } from '../../config/voice.ts';
import { hubError } from '../../lib/errors.ts';
import { openSecret, SecretUnreadableError } from '../../lib/secrets.ts';
import type { Db } from '../../plugins/db.ts';
import type { DockerSettings } from '../docker/client.ts';
import { secretKeyOf } from './keyring.ts';
import type { IntegrationKind, KindFields } from './schema.ts';
import { findIntegrationRow, type IntegrationRow } from './store.ts';

export interface IntegrationDeps {
  sql: Db;
  config: Config;
}

export interface WeatherSettings {
  url: string;
  latitude: number;
  longitude: number;
  units: 'metric' | 'imperial';
  timezone: string;
  label: string | null;
}

export interface ProxmoxSettings {
  url: string;
  /** USER@REALM!TOKENID=SECRET */
  token: string;
  /** PEM text of the certificate to trust, or null for the system's. */
  ca: string | null;
  tlsInsecure: boolean;
}

export interface IntegrationSettingsOf {
  weather: WeatherSettings;
  proxmox: ProxmoxSettings;
  shlink: { url: string; apiKey: string };
  stt: SttConfig;
  assistant: AssistantConfig;
  linkding: LinkdingConfig;
  karakeep: { webhookSecret: string };
  docker: DockerSettings;
}

export interface Resolved<K extends IntegrationKind> {
  source: 'environment' | 'settings';
  /** Changes whenever the settings do: a client built from them is rebuilt when it changes. */
  stamp: string;
  settings: IntegrationSettingsOf[K];
}

/** The variables that set each integration from the environment (the first ones decide). */
export const environmentVariables: Record<IntegrationKind, readonly string[]> = {
  weather: ['WEATHER_LATITUDE', 'WEATHER_LONGITUDE', 'WEATHER_UNITS', 'WEATHER_TIMEZONE', 'WEATHER_URL'],
  proxmox: ['PVE_URL', 'PVE_TOKEN', 'PVE_CA_FILE', 'PVE_TLS_INSECURE'],
  shlink: ['SHLINK_URL', 'SHLINK_API_KEY'],
  stt: ['STT_PROVIDER', 'STT_URL', 'STT_MODEL', 'STT_API_KEY', 'STT_COMMAND'],
  assistant: [
    'ASSISTANT_RUNNER',
    'ASSISTANT_OPENAI_URL',
    'ASSISTANT_MODEL',
    'ASSISTANT_API_KEY',
    'ASSISTANT_COMMAND',
  ],
  linkding: ['LINKDING_URL', 'LINKDING_TOKEN', 'LINKDING_SCHEDULE'],
  karakeep: ['WEBHOOK_SECRET'],
  docker: ['DOCKER_HOST', 'DOCKER_CERT_PATH', 'DOCKER_TLS_VERIFY'],
};

// Defaults of what the browser form leaves out; the environment's own defaults are the same (config.ts).
const openMeteoUrl = 'https://api.open-meteo.com';
const sttTimeoutMs = 60_000;
const assistantDefaults = { timeoutMs: 300_000, historyMessages: 20, maxRounds: 8 };
const linkdingSchedule = '*/15 * * * *';

/** The settings the environment gives `kind`, or null when it leaves the integration to the browser. */
function environmentSettings(
  config: Config,
  kind: IntegrationKind,
): IntegrationSettingsOf[typeof kind] | null {
  const { weather, pve, shlink } = config.dashboard;
  switch (kind) {
    case 'weather':
      return weather.latitude === null || weather.longitude === null
        ? null
        : { ...weather, latitude: weather.latitude, longitude: weather.longitude, label: null };
    case 'proxmox':
      return pve.url && pve.token
        ? {
            url: pve.url,
            token: pve.token,
            ca: pve.caFile ? readFileSync(pve.caFile, 'utf8') : null,
            tlsInsecure: pve.tlsInsecure,
          }
        : null;
    case 'shlink':
      return shlink.url && shlink.apiKey ? { url: shlink.url, apiKey: shlink.apiKey } : null;
    case 'stt':
      return config.voice.stt;
    case 'assistant':
      return config.assistant.runner;
    case 'linkding':
      return config.capture.linkding;
    case 'karakeep':
      return config.capture.webhookSecret ? { webhookSecret: config.capture.webhookSecret } : null;
    case 'docker': {
      const { host, tls, certPath } = config.docker;
      if (host === null) return null;
      const pem = (file: string) => (certPath ? readFileSync(path.join(certPath, file), 'utf8') : null);
      return { host, tls: tls ? { ca: pem('ca.pem'), cert: pem('cert.pem'), key: pem('key.pem') } : null };
    }
  }
}

// The environment does not change while the process runs: worked out once per configuration.
const fromEnvironment = new WeakMap<Config, Map<IntegrationKind, unknown>>();

/** The settings the environment gives `kind` (null: it leaves the integration to the browser). */
export function settingsFromEnvironment<K extends IntegrationKind>(
  config: Config,
  kind: K,
): IntegrationSettingsOf[K] | null {
  let known = fromEnvironment.get(config);
  if (!known) {
    known = new Map();
    fromEnvironment.set(config, known);
  }
  if (!known.has(kind)) known.set(kind, environmentSettings(config, kind));
  return known.get(kind) as IntegrationSettingsOf[K] | null;
}

function isLocalHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || !name.includes('.') || /\.(local|lan|home\.arpa)$/.test(name)) return true;
  if (!ipaddr.isValid(name)) return false;
  return ['loopback', 'private', 'uniqueLocal', 'linkLocal'].includes(ipaddr.parse(name).range());
}

/** A stored integration's values (secrets in the clear) as the settings its users take. */
export function settingsFromValues<K extends IntegrationKind>(
  kind: K,
  values: Record<string, unknown>,
): IntegrationSettingsOf[K] {
  const settings = (() => {
    switch (kind) {
      case 'weather': {
        const v = values as KindFields<'weather'>;
        return {
          url: (v.url ?? openMeteoUrl).replace(/\/+$/, ''),
          latitude: v.latitude,
          longitude: v.longitude,
          units: v.units ?? 'metric',
          timezone: v.timezone ?? 'auto',
          label: v.label ?? null,
        } satisfies WeatherSettings;
      }
      case 'proxmox': {
        const v = values as KindFields<'proxmox'>;
        return {
          url: v.url.replace(/\/+$/, ''),
          token: `${v.token_id}=${v.token_secret}`,
          ca: v.ca_certificate ?? null,
          tlsInsecure: v.tls_insecure ?? false,
        } satisfies ProxmoxSettings;
      }
      case 'shlink': {
        const v = values as KindFields<'shlink'>;
        return { url: v.url.replace(/\/+$/, ''), apiKey: v.api_key as string };
      }
      case 'stt': {
        const v = values as KindFields<'stt'>;
        const url = v.url.replace(/\/+$/, '');
        return v.provider === 'whispercpp'
          ? ({ provider: 'whispercpp', url, timeoutMs: sttTimeoutMs } satisfies SttConfig)
          : ({
              provider: 'openai',
              url,
              model: v.model ?? 'whisper-1',
              apiKey: v.api_key ?? null,
              timeoutMs: sttTimeoutMs,
            } satisfies SttConfig);
      }
      case 'assistant': {
        const v = values as KindFields<'assistant'>;
        const url = v.url.replace(/\/+$/, '');
        return {
          runner: 'openai',
          url,
          model: v.model,
          apiKey: v.api_key ?? null,
          ...assistantDefaults,
          local: isLocalHost(new URL(url).hostname),
        } satisfies AssistantConfig;
      }
      case 'linkding': {
        const v = values as KindFields<'linkding'>;
        return { url: v.url, token: v.token as string, schedule: v.schedule ?? linkdingSchedule };
      }
      case 'karakeep':
        return { webhookSecret: (values as KindFields<'karakeep'>).webhook_secret as string };
      case 'docker': {
        const v = values as KindFields<'docker'>;
        const certificates = [v.ca_certificate, v.client_certificate, v.client_key].some(Boolean);
        const tls = v.host.startsWith('https://') || (v.host.startsWith('tcp://') && certificates);
        return {
          host: v.host,
          tls: tls
            ? { ca: v.ca_certificate ?? null, cert: v.client_certificate ?? null, key: v.client_key ?? null }
            : null,
        } satisfies DockerSettings;
      }
    }
  })();
  return settings as IntegrationSettingsOf[K];
}

/** A stored row's values with its secrets opened; a secret that will not open is a 500 naming it, never its text. */
export async function openedValues(
  config: Config,
  row: Pick<IntegrationRow, 'kind' | 'fields' | 'secrets'>,
): Promise<Record<string, unknown>> {
  const { key } = await secretKeyOf(config.server);
  const values: Record<string, unknown> = { ...row.fields };
  for (const [field, sealed] of Object.entries(row.secrets)) {
    try {
      values[field] = openSecret(key, { kind: row.kind, field }, sealed);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      throw hubError(
        'INTEGRATION_SECRET_UNREADABLE',
        `the stored ${row.kind} secret "${field}" cannot be decrypted with the hub's secret key (a different key, ` +
          'or a value moved from another field): enter it again',
      );
    }
  }
  return values;
}

/**
 * The settings of `kind` in force now: the environment's when it sets the integration, else the stored ones, else
 * null (not configured).
 */
export async function integrationSettings<K extends IntegrationKind>(
  deps: IntegrationDeps,
  kind: K,
): Promise<Resolved<K> | null> {
  const environment = settingsFromEnvironment(deps.config, kind);
  if (environment) return { source: 'environment', stamp: 'environment', settings: environment };
  const row = await findIntegrationRow(deps.sql, kind);
  if (!row) return null;
  return {
    source: 'settings',
    stamp: row.updated_at.toISOString(),
    settings: settingsFromValues(kind, await openedValues(deps.config, row)),
  };
}
