// Capture (README, Configuration): what comes in (uploads, the bookmark webhook, videos, linkding) and how the hub
// fetches what a capture points at.
import { type PrivateAllowList, parsePrivateAllowList } from '../lib/address-policy.ts';
import { ConfigError, type Env, flag, httpUrl, integer, schedule, secret, text } from './env.ts';

export interface LinkdingConfig {
  url: string;
  token: string;
  /** A 5-field cron expression; null: the pull never runs on its own ("off"). */
  schedule: string | null;
}

export interface CaptureConfig {
  webhookSecret: string | null;
  uploadMaxBytes: number;
  /** Characters of text kept of one captured or uploaded document; the rest is cut and the document says so. */
  documentMaxChars: number;
  video: {
    oembedUrl: string;
    transcriptCommand: string | null;
    transcriptTimeoutMs: number;
  };
  /** The linkding instance whose bookmarks are pulled, when LINKDING_URL and LINKDING_TOKEN are set. */
  linkding: LinkdingConfig | null;
}

export interface IngestConfig {
  /** Time limit of one page fetch in ms, redirects and body included. */
  timeoutMs: number;
  /** Time from sending a request to its response headers, per redirect hop (within timeoutMs). */
  headersTimeoutMs: number;
  /** Largest page or document body an ingest job downloads. */
  maxBytes: number;
  /** Attempts of an ingest job with a transient failure (5xx, timeout) before it is marked failed. */
  maxAttempts: number;
  /** Private ranges and host names captures may reach (INGEST_ALLOW_PRIVATE); null: none. */
  allowPrivate: PrivateAllowList | null;
  /** Tests only (VOID_INGEST_ALLOW_PRIVATE): outbound fetches may reach any private address. */
  allowPrivateFetch: boolean;
}

function linkding(env: Env): LinkdingConfig | null {
  const url = text(env, 'LINKDING_URL');
  const token = secret(env, 'LINKDING_TOKEN');
  if (url === null && token === null) return null;
  if (url === null) throw new ConfigError('LINKDING_URL', 'must be set too: LINKDING_TOKEN is set');
  if (token === null) throw new ConfigError('LINKDING_TOKEN', 'must be set too: LINKDING_URL is set');
  const every = schedule(env, 'LINKDING_SCHEDULE', '*/15 * * * *');
  return { url: httpUrl(env, 'LINKDING_URL', url), token, schedule: every };
}

export function capture(env: Env): CaptureConfig {
  return {
    webhookSecret: secret(env, 'WEBHOOK_SECRET'),
    uploadMaxBytes: integer(env, 'UPLOAD_MAX_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    documentMaxChars: integer(env, 'DOCUMENT_MAX_CHARS', 500_000, 1000, 5_000_000),
    video: {
      oembedUrl: httpUrl(env, 'VIDEO_OEMBED_URL', 'https://www.youtube.com/oembed'),
      transcriptCommand: text(env, 'VIDEO_TRANSCRIPT_COMMAND'),
      transcriptTimeoutMs: integer(env, 'VIDEO_TRANSCRIPT_TIMEOUT_MS', 120_000, 1000, 3_600_000),
    },
    linkding: linkding(env),
  };
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

export function ingest(env: Env): IngestConfig {
  const timeoutMs = integer(env, 'INGEST_TIMEOUT_MS', 60_000, 1000, 600_000);
  const headersTimeoutMs = integer(
    env,
    'INGEST_HEADERS_TIMEOUT_MS',
    Math.min(10_000, timeoutMs),
    100,
    600_000,
  );
  if (headersTimeoutMs > timeoutMs) {
    throw new ConfigError(
      'INGEST_HEADERS_TIMEOUT_MS',
      `must not exceed INGEST_TIMEOUT_MS (${timeoutMs}; got ${headersTimeoutMs})`,
    );
  }
  return {
    timeoutMs,
    headersTimeoutMs,
    maxBytes: integer(env, 'INGEST_MAX_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxAttempts: integer(env, 'INGEST_MAX_ATTEMPTS', 5, 1, 25),
    allowPrivate: allowPrivate(env),
    allowPrivateFetch: flag(env, 'VOID_INGEST_ALLOW_PRIVATE'),
  };
}
