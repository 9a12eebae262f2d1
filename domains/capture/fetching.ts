// How ingestion calls the guarded client: limits from the configuration, the address check switched off only by
// VOID_INGEST_ALLOW_PRIVATE, and the safe-fetch test seams (fake DNS, addresses that count as public) for tests
// that exercise the address rules through the whole capture path.
import type { Config } from '../../config.ts';
import { FetchRefusedError, type SafeFetchOptions } from '../../lib/safe-fetch.ts';
import { PermanentJobError } from '../../worker/errors.ts';

export type IngestFetchSeams = Pick<SafeFetchOptions, 'lookup' | 'treatAsPublic'>;

let seams: IngestFetchSeams = {};

/** Tests only: resolve names and judge addresses through these. Pass the same functions on every call. */
export function setIngestFetchSeams(next: IngestFetchSeams | null): void {
  seams = next ?? {};
}

type FetchConfig = Pick<Config, 'allowPrivateFetch' | 'ingestMaxBytes' | 'ingestTimeoutMs'>;

/** The address policy alone, for checking a URL when it is captured. */
export function addressPolicy(config: Pick<Config, 'allowPrivateFetch'>) {
  return { allowPrivate: config.allowPrivateFetch, treatAsPublic: seams.treatAsPublic };
}

export function ingestFetchOptions(config: FetchConfig, maxBytes = config.ingestMaxBytes): SafeFetchOptions {
  return {
    ...addressPolicy(config),
    lookup: seams.lookup,
    maxBytes,
    totalTimeoutMs: config.ingestTimeoutMs,
    headersTimeoutMs: Math.min(10_000, config.ingestTimeoutMs),
    bodyTimeoutMs: Math.min(30_000, config.ingestTimeoutMs),
  };
}

// Refusals a later attempt can get past: the network or the site may be back. Everything else (a blocked address,
// a bad scheme, a body over the limit, a redirect loop) fails the same way every time.
const transientRules = new Set(['timeout', 'connect', 'dns']);

/** A fetch failure as the job should treat it: permanent ones fail the job at once, others are retried. */
export function fetchFailure(error: unknown, what: string): Error {
  if (error instanceof FetchRefusedError) {
    const message = `${what}: ${error.message} (rule: ${error.rule})`;
    return transientRules.has(error.rule)
      ? new Error(message, { cause: error })
      : new PermanentJobError(message, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

// Statuses worth another try: the site is overloaded, rate-limiting or briefly broken.
const retryableStatuses = new Set([408, 425, 429]);

/** An upstream HTTP error status as a job error. */
export function statusFailure(status: number, url: string, what: string): Error {
  const message = `${what}: ${url} answered HTTP ${status}`;
  return retryableStatuses.has(status) || status >= 500 ? new Error(message) : new PermanentJobError(message);
}
