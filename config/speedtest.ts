// Speed tests (README, Configuration).
import { type Env, integer, text } from './env.ts';

export interface SpeedtestConfig {
  /** The speed-test program (split on blanks, no shell) and how long it may run. */
  command: string;
  timeoutMs: number;
}

export function speedtest(env: Env): SpeedtestConfig {
  return {
    command: text(env, 'SPEEDTEST_COMMAND') ?? 'speedtest --format=json --accept-license --accept-gdpr',
    timeoutMs: integer(env, 'SPEEDTEST_TIMEOUT_MS', 120_000, 1000, 3_600_000),
  };
}
