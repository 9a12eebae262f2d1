// How a check moves a service's state: a pass is up at once (degraded when slower than slow_ms, warning when its
// certificate is about to expire); a failure turns it down only after `retries` more consecutive failures
// (default 0: the first failure). Until then it keeps its state (pending while never checked).
import type { CheckOutcome } from './checks.ts';
import type { ServiceState } from './schema.ts';

export interface Standing {
  state: ServiceState;
  failures: number;
}

/** The state a passing check earns, or null for a failing one. */
export type Passed = 'up' | 'degraded' | 'warning' | null;

const passing = new Set<ServiceState>(['up', 'degraded', 'warning']);

export function passedAs(outcome: CheckOutcome, slowMs: number | null): Passed {
  if (!outcome.ok) return null;
  if (outcome.warning) return 'warning';
  if (slowMs !== null && outcome.latency_ms !== null && outcome.latency_ms > slowMs) return 'degraded';
  return 'up';
}

export function nextStanding(previous: Standing, passed: Passed, retries: number): Standing {
  if (passed) return { state: passed, failures: 0 };
  const failures = previous.failures + 1;
  if (failures > retries) return { state: 'down', failures };
  const state = passing.has(previous.state) || previous.state === 'down' ? previous.state : 'pending';
  return { state, failures };
}

export type AlertKind = 'down' | 'up' | 'degraded' | 'expiring';

/**
 * The alerts a change calls for: down; back up after being down; slower than slow_ms; a certificate about to expire.
 * A first pass that is plainly up raises none.
 */
export function alertsFor(from: ServiceState, to: ServiceState): AlertKind[] {
  if (from === to) return [];
  if (to === 'down') return ['down'];
  const alerts: AlertKind[] = from === 'down' && passing.has(to) ? ['up'] : [];
  if (to === 'degraded') alerts.push('degraded');
  if (to === 'warning') alerts.push('expiring');
  return alerts;
}
