// How a check moves a service's state: a pass is up at once; a failure turns it down only after `retries` more
// consecutive failures (default 0: the first failure). Until then it keeps its state (pending while never up).
import type { ServiceState } from './schema.ts';

export interface Standing {
  state: ServiceState;
  failures: number;
}

export function nextStanding(previous: Standing, ok: boolean, retries: number): Standing {
  if (ok) return { state: 'up', failures: 0 };
  const failures = previous.failures + 1;
  if (failures > retries) return { state: 'down', failures };
  const state = previous.state === 'up' || previous.state === 'down' ? previous.state : 'pending';
  return { state, failures };
}
