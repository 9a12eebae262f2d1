// How ingestion calls the guarded client: limits from the configuration, the private ranges and names the owner
// allows (INGEST_ALLOW_PRIVATE), the address check switched off only by VOID_INGEST_ALLOW_PRIVATE (tests), and the safe-fetch test seams (fake DNS, addresses that count as public) for tests
// that exercise the address rules through the whole capture path.
import type { Config } from '../../config/index.ts';
import { FetchRefusedError, type SafeFetchOptions } from '../../lib/safe-fetch.ts';
import { PermanentJobError } from '../../worker/errors.ts';

export type IngestFetchSeams = Pick<SafeFetchOptions, 'lookup' | 'treatAsPublic'>;

let seams: IngestFetchSeams = {};

/** Tests only: resolve names and judge addresses through these. Pass the same functions on every call. */
export function setIngestFetchSeams(next: IngestFetchSeams | null): void {
  seams = next ?? {};
}

export type AddressConfig = Pick<Config, 'ingest'>;
type FetchConfig = Pick<Config, 'ingest'>;

/** The address policy alone, for checking a URL (and what its name resolves to) when it is captured. */
export function addressPolicy(config: AddressConfig) {
  return {
    allowPrivate: config.ingest.allowPrivateFetch,
    allowList: config.ingest.allowPrivate,
    treatAsPublic: seams.treatAsPublic,
    lookup: seams.lookup,
  };
}

export function ingestFetchOptions(config: FetchConfig, maxBytes = config.ingest.maxBytes): SafeFetchOptions {
  return {
    ...addressPolicy(config),
    maxBytes,
    totalTimeoutMs: config.ingest.timeoutMs,
    headersTimeoutMs: config.ingest.headersTimeoutMs,
    bodyTimeoutMs: Math.min(30_000, config.ingest.timeoutMs),
  };
}

/**
 * Attempts a name that does not resolve gets, whatever INGEST_MAX_ATTEMPTS says: a typo'd or vanished host stays
 * unresolvable, and a resolver that is briefly down is back within the few minutes these attempts span.
 */
export const dnsMaxAttempts = 3;

// Refusals a later attempt can get past: the network or the site may be back. Everything else (a blocked address,
// a bad scheme, a body over the limit, a redirect loop) fails the same way every time.
const transientRules = new Set(['timeout', 'connect', 'dns']);

/**
 * A fetch failure as the job should treat it: permanent ones fail the job at once, others are retried; a DNS
 * failure only until the job's `attempt` reaches dnsMaxAttempts.
 */
export function fetchFailure(error: unknown, what: string, attempt = 1): Error {
  if (error instanceof FetchRefusedError) {
    const message = `${what}: ${error.message} (rule: ${error.rule})`;
    const transient = transientRules.has(error.rule) && (error.rule !== 'dns' || attempt < dnsMaxAttempts);
    return transient
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
