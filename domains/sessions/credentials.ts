// What app.ts hands plugins/auth.ts from this domain: the look-up of a browser session, the count of failed
// sign-ins and wrong bearer tokens per client address that it throttles on, and the request counts of its rate
// limits. All of it is in the database, so every hub process on it counts the same.
import { createHash } from 'node:crypto';
import type { FailureCounter, RateCounter } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { checkFailures, hitRateWindow, type RateWindow, readRateWindow, recordFailure } from './store.ts';

export { findSession } from './store.ts';

/** The window failures are counted in: after AUTH_FAILURE_LIMIT of them in it, the address waits for its end. */
const failureWindowSeconds = 10 * 60;

/** Failed sign-ins and wrong tokens, counted per address in the database (plugins/auth.ts throttles with it). */
export function failureCounter(sql: Db, limit: number): FailureCounter {
  return {
    check: (address) => checkFailures(sql, address, limit, failureWindowSeconds),
    fail: (address) => recordFailure(sql, address, failureWindowSeconds),
  };
}

const digest = (key: string) => createHash('sha256').update(key).digest();
const counted = ({ hits, ttl_ms }: RateWindow) => ({ count: hits, ttlMs: Math.max(0, ttl_ms) });

/** Requests per rate-limited key (an agent, a push token), counted in fixed windows in the database. */
export function rateCounter(sql: Db): RateCounter {
  return {
    hit: async (key, windowMs) => counted(await hitRateWindow(sql, digest(key), windowMs)),
    peek: async (key) => counted(await readRateWindow(sql, digest(key))),
  };
}
