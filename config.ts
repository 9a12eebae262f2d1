// Every setting of the hub comes from the environment (and an optional .env file), validated once at start.
// A bad value stops start-up with a ConfigError naming the variable, so misconfiguration is never silent.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import ipaddr from 'ipaddr.js';
import type { AlertFormat } from './lib/notify.ts';
import { type PrivateAllowList, parsePrivateAllowList } from './lib/safe-fetch.ts';
import { parseSecretKey } from './lib/secrets.ts';
import { cronProblem } from './worker/cron.ts';

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type WorkerMode = 'in-process' | 'separate';

export interface AccessConfig {
  teamDomain: string;
  audience: string;
  ownerEmails: string[];
  /** Where the team's signing keys are published; derived from the team domain unless overridden. */
  certsUrl: string;
  issuer: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** null: start the embedded PostgreSQL under dataDir. */
  databaseUrl: string | null;
  databaseAllowSuperuser: boolean;
  /** null: generated on first start and kept in dataDir. */
  ownerToken: string | null;
  access: AccessConfig | null;
  workerMode: WorkerMode;
  workerConcurrency: number;
  agentRateLimitPerMinute: number;
  /** Failed sign-ins and wrong bearer tokens one client address may send in 10 minutes before it gets 429. */
  authFailureLimit: number;
  logLevel: string;
  allowPrivateFetch: boolean;
  webhookSecret: string | null;
  uploadMaxBytes: number;
  jobsRetentionHours: number;
  voiceClipsDir: string;
  videoOembedUrl: string;
  videoTranscriptCommand: string | null;
  /** Time limits of one ingest in ms: the transcript command; the page fetch (redirects and body included). */
  videoTranscriptTimeoutMs: number;
  ingestTimeoutMs: number;
  /** Largest page or document body an ingest job downloads. */
  ingestMaxBytes: number;
  /** Attempts of an ingest job with a transient failure (5xx, timeout) before it is marked failed. */
  ingestMaxAttempts: number;
  /** The speed-test program (split on blanks, no shell) and how long it may run. */
  speedtestCommand: string;
  speedtestTimeoutMs: number;
  /** Largest audio upload for transcription. */
  voiceMaxBytes: number;
  /** Speech-to-text; null when STT_PROVIDER is unset. */
  stt: SttConfig | null;
  /** Limits on an uploaded icon-set zip: entries, total and per-entry uncompressed bytes, compression ratio. */
  iconZip: IconZipLimits;
  /** Megabytes the rendered-icon cache (DATA_DIR/icon-cache) may hold; least recently used renders go first. */
  iconCacheMaxMb: number;
  /** How long a browser session lasts. */
  sessionTtlHours: number;
  /** Fastify's trustProxy: whom to believe about the client's address and protocol (X-Forwarded-*). */
  trustProxy: boolean | string;
  /** Time from sending a capture's request to its response headers, per redirect hop (within ingestTimeoutMs). */
  ingestHeadersTimeoutMs: number;
  /** Private ranges and host names captures may reach (INGEST_ALLOW_PRIVATE); null: none. */
  ingestAllowPrivate: PrivateAllowList | null;
  /** Characters of text kept of one captured or uploaded document; the rest is cut and the document says so. */
  documentMaxChars: number;
  /** The linkding instance whose bookmarks are pulled, when LINKDING_URL and LINKDING_TOKEN are set. */
  linkding: LinkdingConfig | null;
  /** HTTP server time limits in ms: an idle keep-alive connection; a request's headers; a whole request. */
  httpKeepAliveTimeoutMs: number;
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  /** On shutdown, how long /api/healthz answers 503 before the server stops taking connections. */
  shutdownDrainMs: number;
  /** Devices and services (README "Devices and services"). */
  devicesArpFile: string;
  /** null: off. */
  devicesNeighCommand: string | null;
  dhcpLeasesFile: string | null;
  devicesScanCommand: string | null;
  devicesScanTimeoutMs: number;
  /** null: no recurring scan. */
  devicesScanSchedule: string | null;
  healthCheckConcurrency: number;
  alertUrl: string | null;
  alertFormat: AlertFormat;
  alertToken: string | null;
  metricsToken: string | null;
  /** null: the host's own IPv4 networks, each cut to its /24. */
  discoveryCidrs: string[] | null;
  discoveryPorts: number[];
  discoveryConcurrency: number;
  discoveryTimeoutMs: number;
  discoverySchedule: string | null;
  /** The dashboard's upstreams and cards (README, Dashboard). */
  dashboard: DashboardConfig;
  /** The assistant's runner; null when ASSISTANT_RUNNER is unset. */
  assistant: AssistantConfig | null;
  /** HUB_SECRET_KEY: the key of the secrets stored encrypted; null: the one kept in DATA_DIR/secret.key. */
  secretKey: Buffer | null;
  /** The hub's base URL as a runner on this machine reaches it (HUB_MCP_URL is derived from it); null: the listening address. */
  hubUrl: string | null;
}

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

export interface LinkdingConfig {
  url: string;
  token: string;
  /** A 5-field cron expression. */
  schedule: string;
}

export interface IconZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxEntryBytes: number;
  maxRatio: number;
}

export type AssistantConfig =
  | { runner: 'command'; command: string; timeoutMs: number; historyMessages: number }
  | {
      runner: 'openai';
      url: string;
      model: string;
      apiKey: string | null;
      timeoutMs: number;
      historyMessages: number;
      maxRounds: number;
      /** The model runs on the owner's machines (the URL is loopback or a private address): counted as local usage. */
      local: boolean;
    };

export type SttConfig =
  | { provider: 'openai'; url: string; model: string; apiKey: string | null; timeoutMs: number }
  | { provider: 'whispercpp'; url: string; timeoutMs: number }
  | { provider: 'command'; command: string; timeoutMs: number };

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function flag(env: Env, name: string): boolean {
  const raw = text(env, name);
  if (raw === null) return false;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be 1/true/yes/on or 0/false/no/off (got "${raw}")`);
}

function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${choices.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = text(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
  }
  return url.toString();
}

function decimal(env: Env, name: string, min: number, max: number): number | null {
  const raw = text(env, name);
  if (raw === null) return null;
  if (!/^-?\d+(\.\d+)?$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function optionalUrl(env: Env, name: string): string | null {
  return text(env, name) === null ? null : httpUrl(env, name, '').replace(/\/+$/, '');
}

function dashboard(env: Env): DashboardConfig {
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
  const pveToken = text(env, 'PVE_TOKEN');
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
  const shlinkKey = text(env, 'SHLINK_API_KEY');
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

function databaseUrl(env: Env): string | null {
  const raw = text(env, 'DATABASE_URL');
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      'DATABASE_URL',
      'is not a valid URL (expected postgres://user:password@host:5432/database)',
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(
      'DATABASE_URL',
      `must start with postgres:// or postgresql:// (got "${url.protocol}")`,
    );
  }
  if (!url.hostname || url.pathname.length <= 1) {
    throw new ConfigError(
      'DATABASE_URL',
      'must name a host and a database (postgres://user:password@host:5432/database)',
    );
  }
  return raw;
}

function access(env: Env): AccessConfig | null {
  const names = ['ACCESS_TEAM_DOMAIN', 'ACCESS_AUDIENCE', 'OWNER_EMAILS'] as const;
  const values = names.map((name) => text(env, name));
  if (values.every((value) => value === null)) return null;
  const missing = names.filter((_, i) => values[i] === null);
  if (missing.length > 0) {
    throw new ConfigError(missing[0], `must be set too: the access-proxy login needs ${names.join(', ')}`);
  }
  const [teamDomain, audience, emails] = values as string[];
  if (!/^[a-z0-9.-]+(:\d+)?$/i.test(teamDomain)) {
    throw new ConfigError(
      'ACCESS_TEAM_DOMAIN',
      `must be a host name like myteam.cloudflareaccess.com (got "${teamDomain}")`,
    );
  }
  const ownerEmails = emails
    .split(',')
    .map((email) => email.trim().toLowerCase())
    .filter(Boolean);
  const bad = ownerEmails.find((email) => !/^[^@\s]+@[^@\s]+$/.test(email));
  if (bad !== undefined || ownerEmails.length === 0) {
    throw new ConfigError(
      'OWNER_EMAILS',
      `must be a comma-separated list of email addresses (got "${emails}")`,
    );
  }
  const issuer = `https://${teamDomain}`;
  return {
    teamDomain,
    audience,
    ownerEmails,
    issuer,
    certsUrl: httpUrl(env, 'ACCESS_CERTS_URL', `${issuer}/cdn-cgi/access/certs`),
  };
}

function stt(env: Env): SttConfig | null {
  const provider = text(env, 'STT_PROVIDER');
  if (provider === null) return null;
  const timeoutMs = integer(env, 'STT_TIMEOUT_MS', 60_000, 1000, 3_600_000);
  if (provider === 'openai' || provider === 'whispercpp') {
    if (text(env, 'STT_URL') === null)
      throw new ConfigError('STT_URL', `is required with STT_PROVIDER=${provider}`);
    const url = httpUrl(env, 'STT_URL', '').replace(/\/+$/, '');
    if (provider === 'whispercpp') return { provider, url, timeoutMs };
    return {
      provider,
      url,
      model: text(env, 'STT_MODEL') ?? 'whisper-1',
      apiKey: text(env, 'STT_API_KEY'),
      timeoutMs,
    };
  }
  if (provider === 'command') {
    const command = text(env, 'STT_COMMAND');
    if (command === null) throw new ConfigError('STT_COMMAND', 'is required with STT_PROVIDER=command');
    return { provider, command, timeoutMs };
  }
  throw new ConfigError('STT_PROVIDER', `must be openai, whispercpp or command (got "${provider}")`);
}

function trustProxy(env: Env): boolean | string {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === null || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) return true;
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => /^[0-9a-f.:]+(\/\d{1,3})?$/i.test(entry))) return entries.join(',');
  throw new ConfigError(
    'TRUST_PROXY',
    `must be true/false or comma-separated proxy addresses or CIDR ranges (got "${raw}")`,
  );
}

function allowPrivate(env: Env): PrivateAllowList | null {
  const raw = text(env, 'INGEST_ALLOW_PRIVATE');
  if (raw === null) return null;
  try {
    return parsePrivateAllowList(raw);
  } catch (error) {
    throw new ConfigError('INGEST_ALLOW_PRIVATE', (error as Error).message);
  }
}

function linkding(env: Env): LinkdingConfig | null {
  const url = text(env, 'LINKDING_URL');
  const token = text(env, 'LINKDING_TOKEN');
  if (url === null && token === null) return null;
  if (url === null) throw new ConfigError('LINKDING_URL', 'must be set too: LINKDING_TOKEN is set');
  if (token === null) throw new ConfigError('LINKDING_TOKEN', 'must be set too: LINKDING_URL is set');
  const schedule = text(env, 'LINKDING_SCHEDULE') ?? '*/15 * * * *';
  const fields = schedule.split(/\s+/);
  if (fields.length !== 5 || !fields.every((field) => /^[\d*/,-]+$/.test(field))) {
    throw new ConfigError('LINKDING_SCHEDULE', `must be a 5-field cron expression (got "${schedule}")`);
  }
  return { url: httpUrl(env, 'LINKDING_URL', url), token, schedule };
}

function schedule(env: Env, name: string, fallback: string | null): string | null {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (/^(off|none|never)$/i.test(raw)) return null;
  const problem = cronProblem(raw);
  if (problem) throw new ConfigError(name, `is not a schedule: ${problem} (or "off")`);
  return raw;
}

function optionalCommand(env: Env, name: string, fallback: string | null): string | null {
  const raw = text(env, name);
  if (raw === null) return fallback;
  return /^(off|none)$/i.test(raw) ? null : raw;
}

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

/** Common home-lab ports the LAN sweep tries by default. */
export const defaultDiscoveryPorts = [
  80, 443, 8006, 8080, 8443, 8123, 3000, 3001, 5000, 5001, 8000, 8081, 8096, 8384, 8888, 9000, 9090, 9443,
  19999, 32400,
];

function isLocalHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    name === 'localhost' ||
    name.endsWith('.local') ||
    name.endsWith('.lan') ||
    name.endsWith('.home.arpa') ||
    /^127\./.test(name) ||
    /^10\./.test(name) ||
    /^192\.168\./.test(name) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(name) ||
    name === '::1' ||
    /^f[cd][0-9a-f]{2}:/.test(name) ||
    !name.includes('.')
  );
}

function assistant(env: Env): AssistantConfig | null {
  const runner = text(env, 'ASSISTANT_RUNNER');
  if (runner === null) return null;
  const timeoutMs = integer(env, 'ASSISTANT_TIMEOUT_MS', 300_000, 1000, 3_600_000);
  const historyMessages = integer(env, 'ASSISTANT_HISTORY_MESSAGES', 20, 0, 500);
  if (runner === 'command') {
    const command = text(env, 'ASSISTANT_COMMAND');
    if (command === null)
      throw new ConfigError('ASSISTANT_COMMAND', 'is required with ASSISTANT_RUNNER=command');
    return { runner, command, timeoutMs, historyMessages };
  }
  if (runner === 'openai') {
    if (text(env, 'ASSISTANT_OPENAI_URL') === null) {
      throw new ConfigError(
        'ASSISTANT_OPENAI_URL',
        'is required with ASSISTANT_RUNNER=openai (e.g. http://ollama.lan:11434/v1)',
      );
    }
    const model = text(env, 'ASSISTANT_MODEL');
    if (model === null) throw new ConfigError('ASSISTANT_MODEL', 'is required with ASSISTANT_RUNNER=openai');
    const url = httpUrl(env, 'ASSISTANT_OPENAI_URL', '').replace(/\/+$/, '');
    return {
      runner,
      url,
      model,
      apiKey: text(env, 'ASSISTANT_API_KEY'),
      timeoutMs,
      historyMessages,
      maxRounds: integer(env, 'ASSISTANT_MAX_ROUNDS', 8, 1, 50),
      local: isLocalHost(new URL(url).hostname),
    };
  }
  throw new ConfigError('ASSISTANT_RUNNER', `must be command or openai (got "${runner}")`);
}

/** Root runs the embedded database as the postgres user, which cannot reach a private home directory. */
export function defaultDataDir(): string {
  return process.getuid?.() === 0 ? '/var/lib/ops-hub' : path.resolve('data');
}

/** Values from a .env file in the working directory fill in what the real environment leaves unset. */
export function environment(cwd = process.cwd()): Env {
  const file = path.join(cwd, '.env');
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...process.env };
}

export function loadConfig(env: Env = environment()): Config {
  const ownerToken = text(env, 'OWNER_TOKEN');
  if (ownerToken !== null && ownerToken.length < 24) {
    throw new ConfigError(
      'OWNER_TOKEN',
      'must be at least 24 characters (leave it unset to have one generated)',
    );
  }
  const dataDir = path.resolve(text(env, 'DATA_DIR') ?? defaultDataDir());
  return {
    port: integer(env, 'PORT', 3000, 1, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    dataDir,
    databaseUrl: databaseUrl(env),
    databaseAllowSuperuser: flag(env, 'DATABASE_ALLOW_SUPERUSER'),
    ownerToken,
    access: access(env),
    workerMode: oneOf(env, 'WORKER_MODE', ['in-process', 'separate'] as const, 'in-process'),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 4, 1, 64),
    agentRateLimitPerMinute: integer(env, 'AGENT_RATE_LIMIT', 120, 1, 100_000),
    authFailureLimit: integer(env, 'AUTH_FAILURE_LIMIT', 10, 1, 1_000_000),
    logLevel: oneOf(
      env,
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    allowPrivateFetch: flag(env, 'VOID_INGEST_ALLOW_PRIVATE'),
    webhookSecret: text(env, 'WEBHOOK_SECRET'),
    uploadMaxBytes: integer(env, 'UPLOAD_MAX_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    jobsRetentionHours: integer(env, 'JOBS_RETENTION_HOURS', 24 * 7, 1, 24 * 365),
    voiceClipsDir: path.resolve(text(env, 'VOICE_CLIPS_DIR') ?? path.join(dataDir, 'voice-clips')),
    videoOembedUrl: httpUrl(env, 'VIDEO_OEMBED_URL', 'https://www.youtube.com/oembed'),
    videoTranscriptCommand: text(env, 'VIDEO_TRANSCRIPT_COMMAND'),
    videoTranscriptTimeoutMs: integer(env, 'VIDEO_TRANSCRIPT_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    ingestMaxBytes: integer(env, 'INGEST_MAX_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    ingestMaxAttempts: integer(env, 'INGEST_MAX_ATTEMPTS', 5, 1, 25),
    speedtestCommand:
      text(env, 'SPEEDTEST_COMMAND') ?? 'speedtest --format=json --accept-license --accept-gdpr',
    speedtestTimeoutMs: integer(env, 'SPEEDTEST_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    voiceMaxBytes: integer(env, 'VOICE_MAX_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    stt: stt(env),
    iconZip: {
      maxEntries: integer(env, 'ICON_ZIP_MAX_ENTRIES', 5000, 1, 100_000),
      maxTotalBytes: integer(env, 'ICON_ZIP_MAX_TOTAL_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxEntryBytes: integer(env, 'ICON_ZIP_MAX_ENTRY_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      maxRatio: integer(env, 'ICON_ZIP_MAX_RATIO', 100, 2, 10_000),
    },
    iconCacheMaxMb: integer(env, 'ICON_CACHE_MAX_MB', 64, 1, 1024 * 1024),
    sessionTtlHours: integer(env, 'SESSION_TTL_HOURS', 24 * 14, 1, 24 * 365),
    trustProxy: trustProxy(env),
    ...ingestTimeouts(env),
    ingestAllowPrivate: allowPrivate(env),
    documentMaxChars: integer(env, 'DOCUMENT_MAX_CHARS', 500_000, 1000, 5_000_000),
    linkding: linkding(env),
    httpKeepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5000, 100, 600_000),
    // A connection that sends nothing is closed by this limit, checked every second: at most 59 s keeps it
    // within a minute whatever is configured.
    httpHeadersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 59_000),
    httpRequestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 0, 0, 60_000),
    devicesArpFile: text(env, 'DEVICES_ARP_FILE') ?? '/proc/net/arp',
    devicesNeighCommand: optionalCommand(env, 'DEVICES_NEIGH_COMMAND', 'ip -j neigh'),
    dhcpLeasesFile: text(env, 'DHCP_LEASES_FILE'),
    devicesScanCommand: optionalCommand(env, 'DEVICES_SCAN_COMMAND', null),
    devicesScanTimeoutMs: integer(env, 'DEVICES_SCAN_TIMEOUT_MS', 60_000, 1000, 600_000),
    devicesScanSchedule: schedule(env, 'DEVICES_SCAN_SCHEDULE', '*/5 * * * *'),
    healthCheckConcurrency: integer(env, 'HEALTH_CHECK_CONCURRENCY', 16, 1, 256),
    alertUrl: text(env, 'ALERT_URL') === null ? null : httpUrl(env, 'ALERT_URL', ''),
    alertFormat: oneOf(env, 'ALERT_FORMAT', ['json', 'ntfy'] as const, 'json'),
    alertToken: text(env, 'ALERT_TOKEN'),
    metricsToken: text(env, 'METRICS_TOKEN'),
    discoveryCidrs: cidrs(env, 'DISCOVERY_CIDRS'),
    discoveryPorts: ports(env, 'DISCOVERY_PORTS', defaultDiscoveryPorts),
    discoveryConcurrency: integer(env, 'DISCOVERY_CONCURRENCY', 128, 1, 1024),
    discoveryTimeoutMs: integer(env, 'DISCOVERY_TIMEOUT_MS', 1500, 100, 60_000),
    discoverySchedule: schedule(env, 'DISCOVERY_SCHEDULE', null),
    dashboard: dashboard(env),
    assistant: assistant(env),
    secretKey: secretKey(env),
    hubUrl: text(env, 'HUB_URL') === null ? null : httpUrl(env, 'HUB_URL', '').replace(/\/+$/, ''),
  };
}

function secretKey(env: Env): Buffer | null {
  const raw = text(env, 'HUB_SECRET_KEY');
  if (raw === null) return null;
  const key = parseSecretKey(raw);
  if (!key) {
    throw new ConfigError(
      'HUB_SECRET_KEY',
      'must be 32 bytes as base64 or hex (make one: openssl rand -base64 32)',
    );
  }
  return key;
}

function ingestTimeouts(env: Env): Pick<Config, 'ingestTimeoutMs' | 'ingestHeadersTimeoutMs'> {
  const ingestTimeoutMs = integer(env, 'INGEST_TIMEOUT_MS', 60_000, 1000, 600_000);
  const ingestHeadersTimeoutMs = integer(
    env,
    'INGEST_HEADERS_TIMEOUT_MS',
    Math.min(10_000, ingestTimeoutMs),
    100,
    600_000,
  );
  if (ingestHeadersTimeoutMs > ingestTimeoutMs) {
    throw new ConfigError(
      'INGEST_HEADERS_TIMEOUT_MS',
      `must not exceed INGEST_TIMEOUT_MS (${ingestTimeoutMs}; got ${ingestHeadersTimeoutMs})`,
    );
  }
  return { ingestTimeoutMs, ingestHeadersTimeoutMs };
}

/** The database URL with its password masked (in the user part and in a `password` parameter), for logs. */
export function describeDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  for (const name of [...parsed.searchParams.keys()]) {
    if (/pass/i.test(name)) parsed.searchParams.set(name, '***');
  }
  return parsed.toString();
}

/**
 * Where the hub records the URL of the embedded database it started, for a separate worker process. Mode 0600:
 * it holds the service role's password.
 */
export function runtimeFile(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'runtime.json');
}

/** The configuration, or one line naming the bad variable on stderr and exit status 2. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`configuration error: ${error.message}`);
    process.exit(2);
  }
}
