// What app.ts hands plugins/auth.ts from this domain: the look-up of a browser session, and the count of failed
// sign-ins and wrong bearer tokens per client address that it throttles on.
import type { FailureCounter } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { checkFailures, recordFailure } from './store.ts';

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
