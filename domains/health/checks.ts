// One check of one service. Checks reach the owner's LAN by design (the registry is owner-written): a client with a
// time limit, TLS verification on unless the service turns it off, none of the hub's credentials sent, and
// redirects followed by hand (at most 5) only when the service asks for it (follow_redirects). Cloud metadata is
// never reached, whether named by the service or by a redirect (lib/safe-fetch.ts, upstreamAgent). The service's
// own basic-auth credentials go with the request to its URL's origin, never to another a redirect points at.
import net from 'node:net';
import { request } from 'undici';
import { isCloudMetadata, upstreamAgent, upstreamLookup } from '../../lib/safe-fetch.ts';
import type { BasicAuth, Definition } from './definition.ts';

/** What a check needs of a service's definition. */
export type CheckTarget = Pick<
  Definition,
  | 'kind'
  | 'url'
  | 'host'
  | 'port'
  | 'status_min'
  | 'status_max'
  | 'keyword'
  | 'follow_redirects'
  | 'verify_tls'
  | 'timeout_ms'
> & {
  /** Sent as `Authorization: Basic` to the URL's origin. */
  basic_auth: BasicAuth | null;
};

export interface CheckOutcome {
  ok: boolean;
  latency_ms: number | null;
  /** Why it failed (`HTTP 503`, `connection refused`, `keyword not found` ...), or what passed (`HTTP 200`). */
  message: string;
}

const maxRedirects = 5;
const maxKeywordBody = 2 * 1024 * 1024;
const userAgent = 'ops-hub-health-check';

// Keep-alive pools, one per TLS policy: a check every minute to the same host reuses its connection.
const verifying = upstreamAgent({ rejectUnauthorized: true, keepAliveTimeout: 30_000 });
const lenient = upstreamAgent({ rejectUnauthorized: false, keepAliveTimeout: 30_000 });

function basicAuthorization(auth: BasicAuth): string {
  return `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
}

/** An error in words a dashboard can show. */
export function describeError(error: unknown, timeoutMs: number): string {
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err?.code ?? err?.cause?.code ?? '';
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError' || /TIMEOUT/.test(code)) {
    return `timed out after ${timeoutMs} ms`;
  }
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (/CERT|SELF_SIGNED|TLS|SSL/i.test(code)) return `TLS: ${err.message || code}`;
  return err?.message ? err.message.slice(0, 200) : 'check failed';
}

async function readUpTo(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function httpCheck(target: CheckTarget, started: number): Promise<CheckOutcome> {
  const signal = AbortSignal.timeout(target.timeout_ms);
  const first = new URL(target.url ?? '');
  let url = first;
  for (let hop = 0; ; hop++) {
    const credentials =
      target.basic_auth && url.origin === first.origin
        ? { authorization: basicAuthorization(target.basic_auth) }
        : {};
    const response = await request(url, {
      method: 'GET',
      headers: {
        'user-agent': userAgent,
        accept: 'text/html,application/json;q=0.9,*/*;q=0.8',
        ...credentials,
      },
      dispatcher: target.verify_tls ? verifying : lenient,
      signal,
      headersTimeout: target.timeout_ms,
      bodyTimeout: target.timeout_ms,
    });
    const status = response.statusCode;
    const location = response.headers.location;
    if (target.follow_redirects && status >= 300 && status < 400 && typeof location === 'string') {
      await response.body.dump();
      if (hop >= maxRedirects) return { ok: false, latency_ms: null, message: 'too many redirects' };
      url = new URL(location, url);
      continue;
    }
    if (status < target.status_min || status > target.status_max) {
      await response.body.dump();
      return { ok: false, latency_ms: Math.round(performance.now() - started), message: `HTTP ${status}` };
    }
    if (target.keyword) {
      const text = await readUpTo(response.body, maxKeywordBody);
      response.body.destroy();
      const latency = Math.round(performance.now() - started);
      if (!text.includes(target.keyword))
        return { ok: false, latency_ms: latency, message: 'keyword not found' };
      return { ok: true, latency_ms: latency, message: `HTTP ${status}` };
    }
    await response.body.dump();
    return { ok: true, latency_ms: Math.round(performance.now() - started), message: `HTTP ${status}` };
  }
}

function tcpCheck(target: CheckTarget, started: number): Promise<CheckOutcome> {
  const host = target.host ?? '';
  if (isCloudMetadata(host)) {
    return Promise.resolve({ ok: false, latency_ms: null, message: `${host} is a cloud metadata address` });
  }
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: target.port ?? 0, lookup: upstreamLookup });
    const done = (outcome: CheckOutcome) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout(target.timeout_ms, () =>
      done({ ok: false, latency_ms: null, message: `timed out after ${target.timeout_ms} ms` }),
    );
    socket.once('connect', () =>
      done({ ok: true, latency_ms: Math.round(performance.now() - started), message: 'port open' }),
    );
    socket.once('error', (error) =>
      done({ ok: false, latency_ms: null, message: describeError(error, target.timeout_ms) }),
    );
  });
}

export async function runCheck(target: CheckTarget): Promise<CheckOutcome> {
  const started = performance.now();
  try {
    return target.kind === 'http' ? await httpCheck(target, started) : await tcpCheck(target, started);
  } catch (error) {
    return { ok: false, latency_ms: null, message: describeError(error, target.timeout_ms) };
  }
}

/** Runs `work` over `items` with at most `limit` at a time. */
export async function eachLimited<T>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
