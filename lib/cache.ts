// A small cache for upstream data: each key holds its last good value with the time it was fetched. A read within
// the TTL answers from memory; a later read refreshes (concurrent readers share one upstream call); when the refresh
// fails, the last good value is answered marked stale with its age, and only with nothing to fall back on does the
// failure reach the caller.
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

interface Slot<V> {
  value?: V;
  fetchedAt?: number;
  pending?: Promise<Cached<V>>;
}

export interface TtlCacheOptions {
  ttlMs: number;
  /** The clock, injectable for tests. */
  now?: () => number;
  /** Most keys kept; the least recently refreshed goes first. */
  maxKeys?: number;
}

export class TtlCache<V> {
  readonly #slots = new Map<string, Slot<V>>();
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #maxKeys: number;

  constructor(options: TtlCacheOptions) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
    this.#maxKeys = options.maxKeys ?? 256;
  }

  /** The fresh value of `key`, loading it when missing or expired. */
  async get(key: string, load: () => Promise<V>): Promise<Cached<V>> {
    const slot = this.#slots.get(key);
    if (slot?.fetchedAt !== undefined && this.#now() - slot.fetchedAt < this.#ttlMs) {
      return { value: slot.value as V, fetchedAt: new Date(slot.fetchedAt) };
    }
    if (slot?.pending) return slot.pending;
    return this.#refresh(key, load);
  }

  /** The value held for `key`, fresh or not, without loading. */
  peek(key: string): Cached<V> | undefined {
    const slot = this.#slots.get(key);
    if (slot?.fetchedAt === undefined) return undefined;
    return { value: slot.value as V, fetchedAt: new Date(slot.fetchedAt) };
  }

  /** Forgets every value (after a write that makes them wrong). */
  clear(): void {
    for (const [key, slot] of this.#slots) if (!slot.pending) this.#slots.delete(key);
  }

  #refresh(key: string, load: () => Promise<V>): Promise<Cached<V>> {
    const slot: Slot<V> = this.#slots.get(key) ?? {};
    this.#slots.set(key, slot);
    const pending = (async (): Promise<Cached<V>> => {
      try {
        const value = await load();
        const fetchedAt = this.#now();
        slot.value = value;
        slot.fetchedAt = fetchedAt;
        this.#evict();
        return { value, fetchedAt: new Date(fetchedAt) };
      } catch (error) {
        if (slot.fetchedAt === undefined) throw error;
        return {
          value: slot.value as V,
          fetchedAt: new Date(slot.fetchedAt),
          stale: { age_seconds: Math.round((this.#now() - slot.fetchedAt) / 1000), error },
        };
      } finally {
        slot.pending = undefined;
        if (slot.fetchedAt === undefined) this.#slots.delete(key);
      }
    })();
    slot.pending = pending;
    return pending;
  }

  #evict(): void {
    while (this.#slots.size > this.#maxKeys) {
      let oldest: string | undefined;
      let oldestAt = Number.POSITIVE_INFINITY;
      for (const [key, slot] of this.#slots) {
        if (slot.fetchedAt !== undefined && !slot.pending && slot.fetchedAt < oldestAt) {
          oldest = key;
          oldestAt = slot.fetchedAt;
        }
      }
      if (oldest === undefined) return;
      this.#slots.delete(oldest);
    }
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
