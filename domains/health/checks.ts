// One check of one service, by kind: http, tcp, ping (ping.ts), dns (dns.ts) and tls (certificate.ts). Checks reach
// the owner's LAN by design (the registry is owner-written): a client with a time limit, TLS verification on unless
// the service turns it off, none of the hub's credentials sent, and redirects followed by hand (at most 5) only when
// the service asks for it (follow_redirects). Cloud metadata is never reached, whether named by the service or by a
// redirect (lib/safe-fetch.ts, upstreamAgent). The service's own basic-auth credentials and headers go with the
// request to its URL's origin, never to another a redirect points at.
import net from 'node:net';
import type { Dispatcher } from 'undici';
import { isCloudMetadata } from '../../lib/address-policy.ts';
import { undici, upstreamAgent, upstreamLookup } from '../../lib/safe-fetch.ts';
import { type Certificate, readCertificate, trustedCertificates } from './certificate.ts';
import type { BasicAuth, Definition, Headers } from './definition.ts';
import { answerMatches, queryDns } from './dns.ts';
import { ping } from './ping.ts';
import type { Details, ServiceKind } from './schema.ts';

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
  | 'method'
  | 'body'
  | 'json_query'
  | 'packets'
  | 'dns_name'
  | 'dns_type'
  | 'expect'
  | 'warn_days'
  | 'follow_redirects'
  | 'verify_tls'
  | 'timeout_ms'
> & {
  /** Sent as `Authorization: Basic` to the URL's origin. */
  basic_auth: BasicAuth | null;
  /** Sent with the request to the URL's origin. */
  headers: Headers;
};

/** What checks take from the hub's configuration. */
export interface CheckOptions {
  /** The ping program (HEALTH_PING_COMMAND). */
  pingCommand: string;
  /** A PEM file of CA certificates trusted besides the system's (HEALTH_CA_FILE). */
  caFile: string | null;
}

export const defaultCheckOptions: CheckOptions = { pingCommand: 'ping', caFile: null };

export interface CheckOutcome {
  ok: boolean;
  latency_ms: number | null;
  /** Why it failed (`HTTP 503`, `connection refused`, `keyword not found` ...), or what passed (`HTTP 200`). */
  message: string;
  /** What the check found beyond pass or fail (packets, answers, the certificate). */
  details?: Details;
  /** Passed, but something will fail soon (a certificate within warn_days of expiry). */
  warning?: boolean;
}

const maxRedirects = 5;
const maxKeywordBody = 2 * 1024 * 1024;
const userAgent = 'ops-hub-health-check';

// Keep-alive pools, one per TLS policy and trusted CA file: a check every minute to the same host reuses its
// connection.
const pools = new Map<string, { verifying: Dispatcher; lenient: Dispatcher }>();
function pool(caFile: string | null) {
  let agents = pools.get(caFile ?? '');
  if (!agents) {
    const ca = trustedCertificates(caFile)?.join('\n');
    agents = {
      verifying: upstreamAgent({ rejectUnauthorized: true, ca, keepAliveTimeout: 30_000 }),
      lenient: upstreamAgent({ rejectUnauthorized: false, keepAliveTimeout: 30_000 }),
    };
    pools.set(caFile ?? '', agents);
  }
  return agents;
}

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

/** The value at a JSON Pointer (RFC 6901), or undefined when the document has nothing there. */
export function atPointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  let value = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, token)) return undefined;
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}

/** A JSON value compared as a string: strings as they are, anything else as JSON (`true`, `3`, `null`). */
function asString(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Why the body fails the keyword or JSON query, or null when it passes. */
function bodyProblem(target: CheckTarget, text: string): string | null {
  if (target.keyword && !text.includes(target.keyword)) return 'keyword not found';
  if (target.json_query) {
    const { pointer, expected } = target.json_query;
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      return 'the answer is not JSON';
    }
    const value = atPointer(document, pointer);
    if (value === undefined) return `json_query: nothing at ${pointer}`;
    if (asString(value) !== expected) {
      return `json_query: ${pointer} is ${asString(value).slice(0, 100)}, expected ${expected}`;
    }
  }
  return null;
}

async function httpCheck(target: CheckTarget, started: number, options: CheckOptions): Promise<CheckOutcome> {
  const first = new URL(target.url ?? '');
  // An https service's certificate is read beside the request (its own handshake: undici does not expose the
  // socket's), so the row shows its expiry like a tls service's.
  const certificate =
    first.protocol === 'https:'
      ? readCertificate(first.hostname.replace(/^\[(.*)\]$/, '$1'), Number(first.port || 443), {
          timeoutMs: target.timeout_ms,
          ca: trustedCertificates(options.caFile),
        }).catch(() => undefined)
      : Promise.resolve(undefined);
  const outcome = await httpRequest(target, started, first, options);
  const found = await certificate;
  return found ? { ...outcome, details: { certificate: found } } : outcome;
}

async function httpRequest(
  target: CheckTarget,
  started: number,
  first: URL,
  options: CheckOptions,
): Promise<CheckOutcome> {
  const signal = AbortSignal.timeout(target.timeout_ms);
  const agents = pool(options.caFile);
  let url = first;
  for (let hop = 0; ; hop++) {
    const sameOrigin = url.origin === first.origin;
    const credentials =
      target.basic_auth && sameOrigin ? { authorization: basicAuthorization(target.basic_auth) } : {};
    const response = await undici().request(url, {
      method: hop === 0 ? target.method : 'GET',
      headers: {
        'user-agent': userAgent,
        accept: 'text/html,application/json;q=0.9,*/*;q=0.8',
        ...(sameOrigin ? target.headers : {}),
        ...credentials,
      },
      body: hop === 0 ? (target.body ?? undefined) : undefined,
      dispatcher: target.verify_tls ? agents.verifying : agents.lenient,
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
    if (target.keyword || target.json_query) {
      const text = await readUpTo(response.body, maxKeywordBody);
      response.body.destroy();
      const latency = Math.round(performance.now() - started);
      const problem = bodyProblem(target, text);
      return { ok: problem === null, latency_ms: latency, message: problem ?? `HTTP ${status}` };
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

async function pingCheck(
  target: CheckTarget,
  _started: number,
  options: CheckOptions,
): Promise<CheckOutcome> {
  const host = target.host ?? '';
  const result = await ping(options.pingCommand, host, target.packets ?? 3, target.timeout_ms);
  const details = { packets: result.packets, received: result.received, loss_pct: result.loss_pct };
  if (result.error) return { ok: false, latency_ms: null, message: result.error, details };
  const inTime = result.rtts.filter((rtt) => rtt <= target.timeout_ms);
  if (inTime.length === 0) {
    const message =
      result.rtts.length > 0
        ? `no reply within ${target.timeout_ms} ms (slowest ${Math.round(Math.max(...result.rtts))} ms)`
        : `no reply from ${host} (${result.loss_pct}% loss)`;
    return { ok: false, latency_ms: null, message, details };
  }
  const average = inTime.reduce((sum, rtt) => sum + rtt, 0) / inTime.length;
  return {
    ok: true,
    latency_ms: Math.round(average),
    message: `${result.received}/${result.packets} replies, ${result.loss_pct}% loss, ${average.toFixed(1)} ms`,
    details,
  };
}

async function dnsCheck(target: CheckTarget, started: number): Promise<CheckOutcome> {
  const type = target.dns_type ?? 'A';
  const result = await queryDns(
    target.host ?? '',
    target.port ?? 53,
    target.dns_name ?? '',
    type,
    target.timeout_ms,
  );
  const latency = Math.round(performance.now() - started);
  const details = { rcode: result.rcode, answers: result.answers };
  if (result.rcode !== 'NOERROR') return { ok: false, latency_ms: latency, message: result.rcode, details };
  const expected = target.expect;
  if (expected && !result.answers.some((answer) => answerMatches(answer, expected, type))) {
    const got = result.answers.length ? result.answers.join(', ').slice(0, 200) : 'no answer';
    return { ok: false, latency_ms: latency, message: `expected ${expected}, got ${got}`, details };
  }
  const answered = result.answers.length ? result.answers.join(', ').slice(0, 200) : 'no records';
  return { ok: true, latency_ms: latency, message: `${type} ${answered}`, details };
}

/** How a certificate stands: down when it does not verify (unless verify_tls is off) or has expired. */
function certificateOutcome(certificate: Certificate, target: CheckTarget, latency: number): CheckOutcome {
  const details = { certificate };
  const expiry = certificate.not_after.slice(0, 10);
  if (certificate.days_left < 0 || certificate.error === 'CERT_HAS_EXPIRED') {
    return { ok: false, latency_ms: latency, message: `certificate expired on ${expiry}`, details };
  }
  if (!certificate.verified && target.verify_tls) {
    return {
      ok: false,
      latency_ms: latency,
      message: `certificate not trusted: ${certificate.error}`,
      details,
    };
  }
  const warnDays = target.warn_days ?? 14;
  if (certificate.days_left < warnDays) {
    const message = `certificate expires in ${certificate.days_left} days (${expiry})`;
    return { ok: true, warning: true, latency_ms: latency, message, details };
  }
  return { ok: true, latency_ms: latency, message: `certificate valid until ${expiry}`, details };
}

async function tlsCheck(target: CheckTarget, started: number, options: CheckOptions): Promise<CheckOutcome> {
  const certificate = await readCertificate(target.host ?? '', target.port ?? 443, {
    timeoutMs: target.timeout_ms,
    ca: trustedCertificates(options.caFile),
  });
  return certificateOutcome(certificate, target, Math.round(performance.now() - started));
}

/** A push service is never checked from here: it is judged by the heartbeats it sends (push.ts). */
async function pushCheck(): Promise<CheckOutcome> {
  return { ok: false, latency_ms: null, message: 'a push service is judged by the heartbeats it sends' };
}

const checks: Record<
  ServiceKind,
  (target: CheckTarget, started: number, options: CheckOptions) => Promise<CheckOutcome>
> = { http: httpCheck, tcp: tcpCheck, ping: pingCheck, dns: dnsCheck, tls: tlsCheck, push: pushCheck };

export async function runCheck(
  target: CheckTarget,
  options: CheckOptions = defaultCheckOptions,
): Promise<CheckOutcome> {
  const started = performance.now();
  try {
    return await checks[target.kind](target, started, options);
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
