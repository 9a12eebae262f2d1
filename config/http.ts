// HTTP connections (README, Configuration).
import { ConfigError, type Env, integer, text } from './env.ts';

export interface HttpConfig {
  /** Time limits in ms: an idle keep-alive connection; a request's headers; a whole request. */
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Fastify's trustProxy: whom to believe about the client's address and protocol (X-Forwarded-*). */
  trustProxy: boolean | string;
}

function trustProxy(env: Env): boolean | string {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === null || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^(true|yes|on)$/i.test(raw)) return true;
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.every((entry) => /^[0-9a-f.:]+(\/\d{1,3})?$/i.test(entry))) return entries.join(',');
  throw new ConfigError(
    'TRUST_PROXY',
    `must be true/false or comma-separated proxy addresses or CIDR ranges (got "${raw}")`,
  );
}

export function http(env: Env): HttpConfig {
  return {
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5000, 100, 600_000),
    // A connection that sends nothing is closed by this limit, checked every second: at most 59 s keeps it
    // within a minute whatever is configured.
    headersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, 59_000),
    requestTimeoutMs: integer(env, 'HTTP_REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000),
    trustProxy: trustProxy(env),
  };
}
