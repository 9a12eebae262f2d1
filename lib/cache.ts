// A small cache for upstream data (lru-cache): each key holds its last good value with the time it was fetched. A
// read within the TTL answers from memory; a later read refreshes (concurrent readers share one upstream call); when
// the refresh fails, the last good value is answered marked stale with its age, and only with nothing to fall back
// on does the failure reach the caller.
import { LRUCache } from 'lru-cache';

/** Plugin options of a card domain: the clock its cache ages are measured by (tests pass their own). */
export interface CardClockOptions {
  now: () => Date;
}

export interface Cached<V> {
  value: V;
  fetchedAt: Date;
  /** Set when the refresh failed and this is the last good value. */
  stale?: { age_seconds: number; error: unknown };
}

export interface TtlCacheOptions {
  /** How long a value answers without a refresh; at least 1. */
  ttlMs: number;
  /** The clock, injectable for tests. */
  now?: () => number;
  /** Most keys kept; the least recently used goes first. */
  maxKeys?: number;
}

interface Entry<V> {
  value: V;
  fetchedAt: number;
}

export class TtlCache<V> {
  readonly #entries: LRUCache<string, Entry<V>, () => Promise<V>>;
  readonly #now: () => number;

  constructor({ ttlMs, now = Date.now, maxKeys = 256 }: TtlCacheOptions) {
    this.#now = now;
    this.#entries = new LRUCache({
      max: maxKeys,
      ttl: ttlMs,
      // Every check reads the clock (an injected one moves in jumps).
      perf: { now },
      ttlResolution: 0,
      // A failed refresh keeps the last good value, still expired: the next read tries again.
      noDeleteOnFetchRejection: true,
      // clear() during a refresh: its readers still get what it fetched (it is not kept).
      ignoreFetchAbort: true,
      fetchMethod: async (_key, _stale, { context: load }) => ({ value: await load(), fetchedAt: now() }),
    });
  }

  /** The fresh value of `key`, loading it when missing or expired. */
  async get(key: string, load: () => Promise<V>): Promise<Cached<V>> {
    try {
      // Never undefined: the fetch method returns an entry or throws.
      const entry = (await this.#entries.fetch(key, { context: load })) as Entry<V>;
      return { value: entry.value, fetchedAt: new Date(entry.fetchedAt) };
    } catch (error) {
      const last = this.#entries.peek(key, { allowStale: true });
      if (!last) throw error;
      const age_seconds = Math.round((this.#now() - last.fetchedAt) / 1000);
      return { value: last.value, fetchedAt: new Date(last.fetchedAt), stale: { age_seconds, error } };
    }
  }

  /** Forgets every value (after a write that makes them wrong). */
  clear(): void {
    this.#entries.clear();
  }
}

/** The card body of a cached value: the value, when it was fetched, and `stale` with its age when it is old. */
export function withFreshness<V extends object>(
  cached: Cached<V>,
): V & { fetched_at: string; stale?: true; age_seconds?: number } {
  const body = { ...cached.value, fetched_at: cached.fetchedAt.toISOString() };
  if (!cached.stale) return body;
  return { ...body, stale: true, age_seconds: cached.stale.age_seconds };
}

const serialised = new WeakMap<object, string>();

/**
 * The card body as JSON text: `{ configured: true, ...value, fetched_at }`, or with `stale` and `age_seconds` when
 * the value is old. A fresh value is serialised once per fetch and the text reused by every read until the next.
 */
export function cardJson<V extends object>(cached: Cached<V>): string {
  if (cached.stale) return JSON.stringify({ configured: true, ...withFreshness(cached) });
  let text = serialised.get(cached.value);
  if (text === undefined) {
    text = JSON.stringify({ configured: true, ...withFreshness(cached) });
    serialised.set(cached.value, text);
  }
  return text;
}
