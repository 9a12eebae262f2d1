// The one guarded client for every outbound fetch of a user-supplied URL (README, "Capture" and "Input rules").
//
// Where each rule is enforced:
// - scheme, credentials and IP-literal hosts: checkUrl(), before anything is dispatched, for the first URL and for
//   every redirect hop;
// - the Agent's connector checks the host undici is about to dial: an IP literal as such (undici never calls a
//   lookup for those), a name by resolving it itself and refusing the request if ANY answer is blocked; it then
//   opens the socket to one of the checked addresses (never to the name, so a second DNS answer cannot sneak in
//   between check and connect) and keeps the name for TLS SNI and certificate checks; the Host header stays the
//   URL's host because undici builds it from the origin, not from what the connector dialled;
// - the connected peer (socket.remoteAddress) is checked once more, so a bug in any step above still fails closed;
// - redirects are followed here, never by undici, so each hop goes through all of the above;
// - size and time limits are enforced while reading.
// No proxy is used, whatever HTTP_PROXY says: a proxy would dial on our behalf and the peer check would be moot.
//
// Upstreams the owner configures (health checks, discovery, weather, Proxmox, Shlink, speech-to-text, the assistant,
// linkding, alerts) are trusted to live on the LAN, so upstreamAgent() dials private addresses; the same connector
// still refuses cloud metadata (by name, by any DNS answer, by the connected peer) on every connection it opens, so
// a redirect hop cannot reach it either.

import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookupCallback } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';
import type * as Undici from 'undici';
import type { Agent, buildConnector, Dispatcher } from 'undici';
import {
  isCloudMetadata,
  isMetadataAddress,
  METADATA_HOSTS,
  normalHost,
  type PrivateAllowList,
} from './address-policy.ts';
import { lazyRequire } from './lazy.ts';

/**
 * undici, required on the first outbound request: about 110 modules and 5 MB of heap that a hub calling nothing out
 * (a new one, or one that only serves its pages) would otherwise hold from its start. Every module that makes a
 * request takes it from here.
 */
export const undici = lazyRequire<typeof Undici>('undici');

export type FetchRefusalRule =
  | 'url'
  | 'scheme'
  | 'credentials'
  | 'blocked_address'
  | 'dns'
  | 'redirects'
  | 'too_large'
  | 'timeout'
  | 'connect';

/** Thrown for every outcome that is not an HTTP response; `rule` names the rule that stopped the fetch. */
export class FetchRefusedError extends Error {
  readonly rule: FetchRefusalRule;
  /** The URL being fetched when the rule fired (a redirect hop, not necessarily the URL passed in). */
  readonly url: string;
  /** The message without the `refused <url>: ` (or `DNS lookup failed for <url>: `) prefix. */
  readonly reason: string;

  constructor(rule: FetchRefusalRule, url: string, reason: string, options?: { cause?: unknown }) {
    // A name that does not resolve is the network's state, not a refusal: the message says which.
    super(rule === 'dns' ? `DNS lookup failed for ${url}: ${reason}` : `refused ${url}: ${reason}`, options);
    this.name = 'FetchRefusedError';
    this.rule = rule;
    this.url = url;
    this.reason = reason;
  }
}

export type LookupFn = (hostname: string) => Promise<LookupAddress[]>;

function allowListed(list: PrivateAllowList | null, address: string, host: string | null): boolean {
  if (!list || isMetadataAddress(address)) return false;
  if (host !== null && list.hosts.has(normalHost(host))) return true;
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) return false;
  let ip = ipaddr.parse(bare);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  return list.ranges.some(([base, bits]) => base.kind() === ip.kind() && ip.match([base, bits] as never));
}

export interface SafeFetchOptions {
  /** Turns the address check off (tests only: the service maps VOID_INGEST_ALLOW_PRIVATE=1 here). Other rules stay. */
  allowPrivate?: boolean;
  /** Response body cap in bytes (default 10 MiB). */
  maxBytes?: number;
  /** Redirects followed before refusing (default 5; 0 refuses any redirect). */
  maxRedirects?: number;
  /** Time allowed from sending a request to its response headers, per hop (default 10 s). */
  headersTimeoutMs?: number;
  /** Longest silence allowed between two body chunks (default 30 s). */
  bodyTimeoutMs?: number;
  /** Deadline for the whole fetch, redirects and body included (default 60 s). */
  totalTimeoutMs?: number;
  /** Aborts the fetch; it then rejects with the signal's reason rather than a FetchRefusedError. */
  signal?: AbortSignal;
  method?: string;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  userAgent?: string;
  /** Test seam: resolves names instead of dns.lookup. Pass a stable function: agents are cached per function. */
  lookup?: LookupFn;
  /** Test seam: addresses for which this returns true count as public. Pass a stable function, as for lookup. */
  treatAsPublic?: (address: string) => boolean;
  /** Private ranges and host names the owner allows (INGEST_ALLOW_PRIVATE). Pass the same object on every call. */
  allowList?: PrivateAllowList | null;
}

export interface SafeFetchResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** Lower-cased names; repeated headers joined with ', '. */
  headers: Record<string, string>;
  contentType: string;
  body: Buffer;
  /** Every URL that answered with a redirect, in order; empty when the first answer was final. */
  redirects: string[];
}

const DEFAULTS = {
  maxBytes: 10 * 1024 * 1024,
  maxRedirects: 5,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  totalTimeoutMs: 60_000,
  userAgent: 'ops-hub/0.1 (link fetcher)',
};
const CONNECT_TIMEOUT_MS = 10_000;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Headers that carry the caller's authority for one site; a redirect must not hand them to another origin.
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

// ---------------------------------------------------------------------------------------------------------------
// Address ranges

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

function v4Range(ip: ipaddr.IPv4): string | null {
  const range = ip.range();
  return range === 'unicast' ? null : range;
}

function embeddedV4(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function v6Range(ip: ipaddr.IPv6): string | null {
  const range = ip.range();
  const p = ip.parts;
  switch (range) {
    // These reach the embedded IPv4 address (dual-stack sockets, SIIT and NAT64 translators), so that address
    // decides; a public one is allowed, which keeps fetching working on IPv6-only hosts behind DNS64.
    case 'ipv4Mapped':
    case 'rfc6145': {
      const inner = v4Range(embeddedV4(p[6], p[7]));
      return inner ? `${range}:${inner}` : null;
    }
    case 'rfc6052': {
      // Only the well-known prefix 64:ff9b::/96 has a fixed place for the IPv4 address; the local-use prefix
      // (64:ff9b:1::/48) is the operator's own network and its layout is unknown, so it stays blocked.
      if (p[2] !== 0 || p[3] !== 0 || p[4] !== 0 || p[5] !== 0) return range;
      const inner = v4Range(embeddedV4(p[6], p[7]));
      return inner ? `${range}:${inner}` : null;
    }
    case '6to4': {
      // Deprecated (RFC 7526): nothing worth fetching lives only there, so it is blocked whatever it embeds; the
      // embedded range is named when it is itself blocked, to make the refusal readable.
      const inner = v4Range(embeddedV4(p[1], p[2]));
      return inner ? `6to4:${inner}` : '6to4';
    }
    case 'unicast':
      // ipaddr.js calls everything it has no name for 'unicast', including the IPv4-compatible ::/96 block and
      // unallocated space; only 2000::/3 is allocated as global unicast.
      return ip.match(GLOBAL_UNICAST_V6) ? null : 'reserved';
    default:
      return range;
  }
}

/**
 * The name of the blocked range `address` falls in, or null when it is public unicast.
 * Anything ipaddr.js does not call 'unicast' is blocked; IPv6 forms embedding an IPv4 address are judged by it
 * ('ipv4Mapped:loopback'). Anything but a dotted-quad IPv4 or an IPv6 address returns 'invalid' (fail closed).
 */
export function blockedRange(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Only the strict forms a socket reports or dials: ipaddr.js would also read '0177.1' or '2130706433', and
  // guessing how such a string was meant is exactly what must not happen here.
  if (isIP(bare) === 0) return 'invalid';
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(bare);
  } catch {
    return 'invalid';
  }
  return ip.kind() === 'ipv4' ? v4Range(ip as ipaddr.IPv4) : v6Range(ip as ipaddr.IPv6);
}

// ---------------------------------------------------------------------------------------------------------------
// URL rules

interface AddressPolicy {
  /** Owner-configured upstreams: private addresses are fine, only cloud metadata is refused. */
  metadataOnly?: boolean;
  allowPrivate: boolean;
  lookup: LookupFn;
  treatAsPublic: ((address: string) => boolean) | undefined;
  allowList: PrivateAllowList | null;
}

/** Why `address` (reached through the name `host`, when there is one) is refused, or null when it may be dialled. */
function blockedFor(policy: AddressPolicy, address: string, host: string | null = null): string | null {
  if (policy.metadataOnly) return isMetadataAddress(address) ? 'cloud metadata' : null;
  if (policy.allowPrivate) return null;
  if (policy.treatAsPublic?.(address)) return null;
  const range = blockedRange(address);
  if (range === null) return null;
  return allowListed(policy.allowList, address, host) ? null : range;
}

function redactCredentials(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href.replace('//', '//***@');
}

function checkParsedUrl(url: URL, policy: AddressPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchRefusedError(
      'scheme',
      url.href,
      `scheme ${url.protocol} is not allowed (only http and https)`,
    );
  }
  // Refused rather than sent: a user-supplied URL has no business carrying a password to a third party, the
  // `https://trusted.example@evil.example/` form exists to mislead whoever reads it, and the secret would
  // otherwise travel on into stored URLs and logs. The error redacts it for the same reason.
  if (url.username !== '' || url.password !== '') {
    throw new FetchRefusedError(
      'credentials',
      redactCredentials(url),
      'credentials in the URL are not allowed',
    );
  }
  // The WHATWG parser has already turned every IPv4 spelling (2130706433, 0177.0.0.1, 0x7f.1, 127.1 ...) into
  // dotted decimal and compressed IPv6, which is exactly the string undici dials; names are checked when resolved.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0) {
    const range = blockedFor(policy, host, host);
    if (range) {
      throw new FetchRefusedError(
        'blocked_address',
        url.href,
        `address ${host} is in a blocked range (${range})`,
      );
    }
  }
}

/**
 * Applies the rules that need no network (URL syntax, scheme, credentials, IP-literal hosts) and returns the
 * parsed URL; for routes that want to reject a bad URL before queueing work. safeFetch applies them itself.
 */
export function checkUrl(
  url: string,
  options: Pick<SafeFetchOptions, 'allowPrivate' | 'treatAsPublic'> = {},
): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FetchRefusedError('url', url, 'not a valid absolute URL');
  }
  checkParsedUrl(parsed, policyOf(options));
  return parsed;
}

function policyOf(options: SafeFetchOptions): AddressPolicy {
  return {
    allowPrivate: options.allowPrivate === true,
    lookup: options.lookup ?? defaultLookup,
    treatAsPublic: options.treatAsPublic,
    allowList: options.allowList ?? null,
  };
}

/**
 * checkUrl, and for a host name also its resolution: every address it resolves to must pass the same rules an IP
 * literal does, so a name and the address it stands for get the same answer before any work is queued. A name
 * that does not resolve now is not refused here (DNS may be back by the time the fetch runs); the fetch reports it.
 */
export async function checkUrlResolved(
  url: string,
  options: Pick<SafeFetchOptions, 'allowPrivate' | 'treatAsPublic' | 'lookup' | 'allowList'> = {},
): Promise<URL> {
  const parsed = checkUrl(url, options);
  const policy = policyOf(options);
  const name = parsed.hostname;
  if (isIP(name.startsWith('[') ? name.slice(1, -1) : name) !== 0 || policy.allowPrivate) return parsed;
  let answers: LookupAddress[];
  try {
    answers = await policy.lookup(name);
  } catch {
    return parsed;
  }
  for (const { address } of answers) {
    const range = blockedFor(policy, address, name);
    if (range) {
      throw new FetchRefusedError(
        'blocked_address',
        parsed.href,
        `${name} resolves to ${address}, which is in a blocked range (${range})`,
      );
    }
  }
  return parsed;
}

// ---------------------------------------------------------------------------------------------------------------
// The connector: resolve, check every answer, connect to a checked address, check the peer

// Carries a rule out of the connector through undici, which passes connector errors through unchanged; safeFetch
// turns it into a FetchRefusedError that names the URL.
export class GuardError extends Error {
  readonly rule: FetchRefusalRule;

  constructor(rule: FetchRefusalRule, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GuardError';
    this.rule = rule;
  }
}

const defaultLookup: LookupFn = (hostname) => dnsLookup(hostname, { all: true });

type ConnectGate = (address: string, port: number) => void;
let connectGate: ConnectGate | null = null;

/**
 * Tests only: `gate` runs right before any socket is opened, with the address about to be dialled; throwing
 * stops the connection. Lets tests guarantee they never reach beyond loopback even if the guard had a bug.
 */
export function setTestConnectGate(gate: ConnectGate | null): void {
  connectGate = gate;
}

function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string')
    return err.code;
  return undefined;
}

function openSocket(open: buildConnector.connector, options: buildConnector.Options): Promise<Socket> {
  return new Promise((resolve, reject) => {
    open(options, (err, socket) => (err ? reject(err) : resolve(socket)));
  });
}

async function connectChecked(
  policy: AddressPolicy,
  open: buildConnector.connector,
  options: buildConnector.Options,
): Promise<Socket> {
  const name = options.hostname;
  if (METADATA_HOSTS.has(normalHost(name))) {
    throw new GuardError('blocked_address', `${name} is a cloud metadata host`);
  }
  let addresses: string[];
  if (isIP(name) !== 0) {
    addresses = [name];
  } else {
    let answers: LookupAddress[];
    try {
      answers = await policy.lookup(name);
    } catch (err) {
      throw new GuardError('dns', `${name} did not resolve (${errorCode(err) ?? String(err)})`, {
        cause: err,
      });
    }
    if (answers.length === 0) throw new GuardError('dns', `${name} did not resolve to any address`);
    addresses = answers.map((answer) => answer.address);
  }
  // Every answer is checked, not only the one dialled: a name answering with both a public and a private address
  // is someone steering the fetch, and connection fallback could land on the private one anyway.
  for (const address of addresses) {
    const range = blockedFor(policy, address, name);
    if (range) {
      const what = address === name ? `address ${address}` : `${name} resolves to ${address}, which`;
      throw new GuardError('blocked_address', `${what} is in a blocked range (${range})`);
    }
  }
  const defaultPort = options.protocol === 'https:' ? 443 : 80;
  const port = options.port === '' ? defaultPort : Number(options.port);
  // TLS must still present and verify the name, not the address dialled.
  const servername = options.protocol === 'https:' && isIP(name) === 0 ? name : undefined;
  let lastError: unknown;
  for (const address of addresses) {
    let socket: Socket;
    try {
      connectGate?.(address, port);
      socket = await openSocket(open, { ...options, hostname: address, servername });
    } catch (err) {
      lastError = err;
      continue;
    }
    const peer = socket.remoteAddress;
    const range = peer === undefined ? 'unknown' : blockedFor(policy, peer, name);
    if (range) {
      socket.destroy();
      throw new GuardError('blocked_address', `connected peer ${peer} is in a blocked range (${range})`);
    }
    return socket;
  }
  throw lastError;
}

function guardedConnector(
  policy: AddressPolicy,
  tls: { rejectUnauthorized?: boolean; ca?: Buffer | string; cert?: string; key?: string } = {},
): buildConnector.connector {
  // HTTP/1.1 only: every site speaks it, and one protocol keeps the limits below behaving one way.
  const open = undici().buildConnector({ timeout: CONNECT_TIMEOUT_MS, allowH2: false, ...tls });
  return (options, callback) => {
    connectChecked(policy, open, options).then(
      (socket) => callback(null, socket),
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  };
}

// One Agent per address policy, so connections are pooled across calls. Keyed by function identity for the
// seams; the bound only matters if a caller passes a fresh seam function on every call.
interface AgentEntry extends AddressPolicy {
  agent: Agent;
}
const MAX_AGENTS = 8;
const agents: AgentEntry[] = [];

function agentFor(policy: AddressPolicy): Agent {
  const found = agents.find(
    (entry) =>
      entry.allowPrivate === policy.allowPrivate &&
      entry.lookup === policy.lookup &&
      entry.treatAsPublic === policy.treatAsPublic &&
      entry.allowList === policy.allowList,
  );
  if (found) return found.agent;
  const agent = new (undici().Agent)({ connect: guardedConnector(policy) });
  agents.push({ ...policy, agent });
  if (agents.length > MAX_AGENTS) {
    // close() lets requests in flight on the evicted agent finish.
    agents
      .shift()
      ?.agent.close()
      .catch(() => {});
  }
  return agent;
}

// ---------------------------------------------------------------------------------------------------------------
// Owner-configured upstreams

export interface UpstreamAgentOptions {
  /** TLS certificate verification (default on). */
  rejectUnauthorized?: boolean;
  /** Extra CA certificates to trust (PVE_CA_FILE). */
  ca?: Buffer | string;
  /** A client certificate and its key (PEM), for an upstream that asks for one (a Docker daemon's TLS). */
  cert?: string;
  key?: string;
  keepAliveTimeout?: number;
  pipelining?: number;
  headersTimeout?: number;
  bodyTimeout?: number;
  /** Test seam: resolves names instead of dns.lookup. */
  lookup?: LookupFn;
}

/**
 * The dispatcher for an upstream the owner configures: LAN and loopback addresses are dialled, cloud metadata never
 * (its host names, any DNS answer or connected peer in its addresses), on every connection, redirect hops included.
 * Make one per configuration and keep it: it pools connections.
 */
export function upstreamAgent(options: UpstreamAgentOptions = {}): Agent {
  const { rejectUnauthorized = true, ca, cert, key, lookup = defaultLookup, ...agentOptions } = options;
  const policy: AddressPolicy = {
    metadataOnly: true,
    allowPrivate: true,
    lookup,
    treatAsPublic: undefined,
    allowList: null,
  };
  return new (undici().Agent)({
    ...agentOptions,
    connect: guardedConnector(policy, { rejectUnauthorized, ca, cert, key }),
  });
}

/** Node's built-in fetch as its `dispatcher` option takes it (its fetch speaks undici's older handler API). */
export type BuiltinDispatcher = NonNullable<RequestInit['dispatcher']>;

/** upstreamAgent for Node's built-in fetch. */
export function upstreamFetchDispatcher(options: UpstreamAgentOptions = {}): BuiltinDispatcher {
  // Only the type declarations of the two undici versions differ here, not the runtime contract.
  return new (undici().Dispatcher1Wrapper)(upstreamAgent(options)) as unknown as BuiltinDispatcher;
}

/**
 * For a plain socket to an owner-configured host (`net.connect({ host, port, lookup: upstreamLookup })`): dns.lookup,
 * failing with a GuardError when any answer is a cloud metadata address. An address or a metadata host name given
 * as `host` is never looked up: check it with isCloudMetadata first.
 */
export const upstreamLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookupCallback(hostname, options, (error, address, family) => {
    if (error) return callback(error, address, family);
    const answers = typeof address === 'string' ? [{ address, family }] : address;
    const refused = answers.find((answer) => isMetadataAddress(answer.address));
    if (refused) {
      const reason = `${hostname} resolves to ${refused.address}, a cloud metadata address`;
      return callback(Object.assign(new GuardError('blocked_address', reason), { code: 'EMETADATA' }), '', 0);
    }
    callback(null, address, family);
  });
};

/**
 * The address to dial for an owner-configured host, for a client that would otherwise resolve the name itself
 * (nodemailer, a DNS resolver's server): an IP address as given, a name looked up once (its first answer). Fails with
 * a GuardError for a cloud metadata address or host name, or a name with any answer among them. Dialling the answer,
 * rather than handing the client the name, means the checked address is the one connected to.
 */
export async function upstreamAddress(host: string, lookup: LookupFn = defaultLookup): Promise<string> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isCloudMetadata(bare)) throw new GuardError('blocked_address', `${host} is a cloud metadata address`);
  if (isIP(bare)) return bare;
  const answers = await lookup(bare);
  const refused = answers.find((answer) => isMetadataAddress(answer.address));
  if (refused) {
    throw new GuardError(
      'blocked_address',
      `${host} resolves to ${refused.address}, a cloud metadata address`,
    );
  }
  if (answers.length === 0) throw new GuardError('blocked_address', `${host} has no address`);
  return answers[0].address;
}

/** Closes the pooled connections of every agent this module created (service shutdown, end of tests). */
export async function closeSafeFetch(): Promise<void> {
  const closing = agents.splice(0).map((entry) => entry.agent.close());
  await Promise.allSettled(closing);
}

// ---------------------------------------------------------------------------------------------------------------
// The fetch

interface Limits {
  maxBytes: number;
  maxRedirects: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  totalTimeoutMs: number;
}

function toRefusal(err: unknown, url: string, limits: Limits, deadline: AbortSignal): FetchRefusedError {
  if (err instanceof FetchRefusedError) return err;
  const refusal = (rule: FetchRefusalRule, reason: string) =>
    new FetchRefusedError(rule, url, reason, { cause: err });
  // Checked first: whatever undici reports once the deadline has fired is a consequence of it.
  if (deadline.aborted) return refusal('timeout', `not completed within ${limits.totalTimeoutMs} ms`);
  if (err instanceof GuardError) return refusal(err.rule, err.message);
  const code = errorCode(err);
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
      return refusal('timeout', `no response headers within ${limits.headersTimeoutMs} ms`);
    case 'UND_ERR_BODY_TIMEOUT':
      return refusal('timeout', `response body stalled for ${limits.bodyTimeoutMs} ms`);
    case 'UND_ERR_CONNECT_TIMEOUT':
      return refusal('timeout', `no connection within ${CONNECT_TIMEOUT_MS} ms`);
    default:
      return refusal(
        'connect',
        `connection failed (${code ?? (err instanceof Error ? err.message : String(err))})`,
      );
  }
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

// destroy() without a reason makes undici emit an AbortError on the body; nobody listens once we gave up on it.
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => {});
  res.body.destroy();
}

async function readCapped(res: Dispatcher.ResponseData, url: string, maxBytes: number): Promise<Buffer> {
  const announced = Number(res.headers['content-length']);
  if (Number.isFinite(announced) && announced > maxBytes) {
    discard(res);
    throw new FetchRefusedError(
      'too_large',
      url,
      `announced Content-Length ${announced} exceeds the limit of ${maxBytes} bytes`,
    );
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > maxBytes) {
      discard(res);
      throw new FetchRefusedError('too_large', url, `response body exceeds the limit of ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

/**
 * GETs (or `method`s) a user-supplied URL under every rule of the guard, following redirects by hand.
 * Resolves with any HTTP response, 4xx and 5xx included; rejects with FetchRefusedError otherwise (or with the
 * caller's abort reason when `options.signal` fires).
 */
export async function safeFetch(url: string, options: SafeFetchOptions = {}): Promise<SafeFetchResponse> {
  const limits: Limits = {
    maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
    maxRedirects: options.maxRedirects ?? DEFAULTS.maxRedirects,
    headersTimeoutMs: options.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs,
    bodyTimeoutMs: options.bodyTimeoutMs ?? DEFAULTS.bodyTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs ?? DEFAULTS.totalTimeoutMs,
  };
  const policy = policyOf(options);
  const agent = agentFor(policy);
  const deadline = AbortSignal.timeout(limits.totalTimeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;

  let current = checkUrl(url, options);
  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  const headers: Record<string, string> = {
    accept: '*/*',
    'user-agent': options.userAgent ?? DEFAULTS.userAgent,
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    // The Host header must name what the guard checked; undici derives it from the URL.
    if (name.toLowerCase() !== 'host') headers[name.toLowerCase()] = value;
  }
  const redirects: string[] = [];

  // Reads `current` when called, so a refusal names the hop it happened on and the hop before it.
  const fail = (err: unknown): unknown => {
    if (options.signal?.aborted && !deadline.aborted) return options.signal.reason;
    const refusal = toRefusal(err, current.href, limits, deadline);
    const via = redirects.at(-1);
    if (via === undefined || refusal.url === via) return refusal;
    return new FetchRefusedError(refusal.rule, refusal.url, `${refusal.reason} (redirected from ${via})`, {
      cause: refusal.cause,
    });
  };

  for (;;) {
    let res: Dispatcher.ResponseData;
    try {
      res = await agent.request({
        origin: current.origin,
        path: `${current.pathname}${current.search}`,
        method: method as Dispatcher.HttpMethod,
        headers,
        body,
        signal,
        headersTimeout: limits.headersTimeoutMs,
        bodyTimeout: limits.bodyTimeoutMs,
      });
    } catch (err) {
      throw fail(err);
    }

    const location = res.headers.location;
    if (REDIRECT_STATUSES.has(res.statusCode) && typeof location === 'string') {
      // Drained rather than destroyed so the connection can be reused; dump() gives up after a small limit.
      await res.body.dump().catch(() => {});
      if (redirects.length >= limits.maxRedirects) {
        throw fail(new GuardError('redirects', `more than ${limits.maxRedirects} redirects`));
      }
      redirects.push(current.href);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw fail(new FetchRefusedError('url', location, 'redirect Location is not a valid URL'));
      }
      try {
        checkParsedUrl(next, policy);
      } catch (err) {
        throw fail(err);
      }
      if (next.origin !== current.origin) {
        for (const name of ORIGIN_BOUND_HEADERS) delete headers[name];
      }
      // As browsers do: 303 always, and 301/302 in practice, turn the request into a body-less GET.
      if (res.statusCode === 301 || res.statusCode === 302 || res.statusCode === 303) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        delete headers['content-type'];
        delete headers['content-length'];
      }
      current = next;
      continue;
    }

    let payload: Buffer;
    try {
      payload = await readCapped(res, current.href, limits.maxBytes);
    } catch (err) {
      discard(res);
      throw fail(err);
    }
    const responseHeaders = flattenHeaders(res.headers);
    return {
      url: current.href,
      status: res.statusCode,
      headers: responseHeaders,
      contentType: responseHeaders['content-type'] ?? '',
      body: payload,
      redirects,
    };
  }
}
