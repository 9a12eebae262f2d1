// A monitored service's definition, checked and normalised: the check fields its kind uses (the others cleared) and
// its target, the one identity of what it checks: http `scheme://host:port/path`, tcp `tcp://host:port`, ping
// `ping://host`, dns `dns://host:port/name/TYPE`, tls `tls://host:port`. Two services (curated or discovered) never
// share a target; a push service (checked by the heartbeats it sends) has a target of its own making,
// `push://<uuid>`, kept across edits. Credentials written into the URL (`https://user:pass@nas/`) are taken out of
// it: they become the check's basic auth, kept apart and never shown (the URL is, agents included); request headers
// are kept the same way.
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { isCloudMetadata } from '../../lib/address-policy.ts';
import { hubError } from '../../lib/errors.ts';
import { normaliseMac } from '../devices/mac.ts';
import type { CreateService, DnsType, HttpMethod, ServiceKind } from './schema.ts';

export interface JsonQuery {
  pointer: string;
  expected: string;
}

export interface Definition {
  name: string;
  category: string;
  kind: ServiceKind;
  url: string | null;
  host: string | null;
  port: number | null;
  status_min: number;
  status_max: number;
  keyword: string | null;
  method: HttpMethod;
  body: string | null;
  json_query: JsonQuery | null;
  packets: number | null;
  dns_name: string | null;
  dns_type: DnsType | null;
  expect: string | null;
  warn_days: number | null;
  slow_ms: number | null;
  follow_redirects: boolean;
  verify_tls: boolean;
  interval_s: number;
  /** push: how late a heartbeat (or the finish after a start) may come before the service is down. */
  grace_s: number;
  timeout_ms: number;
  retries: number;
  enabled: boolean;
  external: boolean;
  icon: string | null;
  link: string | null;
  device_mac: string | null;
  notes: string | null;
  /** What it runs on (outage folding, maintenance by resource). */
  resource_id: string | null;
  /** Its state is that of what it runs on (its resource, else its device): while it is down, so is all on it. */
  host_check: boolean;
  target: string;
}

/** What an http check sends as `Authorization: Basic`. */
export interface BasicAuth {
  username: string;
  password: string;
}

/** What a write says of a service's credentials: new ones, none (cleared), or nothing (those stored stay). */
export type CredentialsChange = BasicAuth | null | undefined;

/** Request headers an http check sends (they may carry a token, so they are write-only like credentials). */
export type Headers = Record<string, string>;
/** New headers, none (cleared), or nothing (those stored stay). */
export type HeadersChange = Headers | null | undefined;

/** What a definition leaves to be written apart from it: the check's credentials and headers. */
export interface Secrets {
  credentials: CredentialsChange;
  headers: HeadersChange;
}

export const defaults: Omit<Definition, 'name' | 'kind' | 'target'> = {
  category: 'Services',
  status_min: 200,
  status_max: 399,
  keyword: null,
  method: 'GET',
  body: null,
  json_query: null,
  packets: null,
  dns_name: null,
  dns_type: null,
  expect: null,
  warn_days: null,
  slow_ms: null,
  follow_redirects: true,
  verify_tls: true,
  interval_s: 60,
  grace_s: 60,
  timeout_ms: 5000,
  retries: 0,
  enabled: true,
  external: false,
  icon: null,
  link: null,
  device_mac: null,
  notes: null,
  resource_id: null,
  host_check: false,
  url: null,
  host: null,
  port: null,
};

const hostPattern =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

function invalid(message: string): never {
  throw hubError('INVALID_SERVICE_CHECK', message);
}

function httpUrl(value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    invalid(`${field} "${redacted(value)}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') invalid(`${field} must be an http(s) URL`);
  if (!url.hostname) invalid(`${field} must name a host`);
  return url;
}

/** A value as a message may show it: anything between `//` and `@` could be a password. */
function redacted(value: string): string {
  return value.replace(/\/\/[^/?#]*@/, '//***@');
}

/** Refuses a check of a cloud metadata service: it hands out cloud credentials, and no check needs it. */
function notMetadata(host: string, field: string): void {
  if (isCloudMetadata(host))
    invalid(`${field} names ${host}, a cloud metadata address, which is never checked`);
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The credentials in a URL's user-info, taken out of it. */
function takeCredentials(url: URL): BasicAuth | undefined {
  if (url.username === '' && url.password === '') return undefined;
  const credentials = { username: decoded(url.username), password: decoded(url.password) };
  url.username = '';
  url.password = '';
  return credentials;
}

export function httpTarget(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host = url.hostname.toLowerCase();
  return `${url.protocol}//${host}:${port}${url.pathname || '/'}`;
}

function bracketed(host: string): string {
  const name = host.toLowerCase();
  return isIP(name) === 6 ? `[${name}]` : name;
}

function hostPort(host: string, port: number): string {
  return `${bracketed(host)}:${port}`;
}

export function tcpTarget(host: string, port: number): string {
  return `tcp://${hostPort(host, port)}`;
}

/** The host of a tcp, ping, dns or tls check: a name or an address, never cloud metadata. */
function checkedHost(value: string | null, kind: string): string {
  if (!value) invalid(`host is required for a ${kind} check`);
  const host = value.trim().replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) === 0 && !hostPattern.test(host))
    invalid(`host "${value}" is not a host name or IP address`);
  notMetadata(host, 'host');
  return host;
}

function checkedPort(port: number | null, kind: string, fallback: number | null = null): number {
  const value = port ?? fallback;
  if (value === null || !Number.isInteger(value) || value < 1 || value > 65535) {
    invalid(`port must be an integer from 1 to 65535 for a ${kind} check`);
  }
  return value;
}

/** The fields only one kind uses, cleared for every other kind. */
const kindFields = {
  http: ['url', 'status_min', 'status_max', 'keyword', 'method', 'body', 'json_query', 'follow_redirects'],
  tcp: [],
  ping: ['packets'],
  dns: ['dns_name', 'dns_type', 'expect'],
  tls: ['warn_days'],
  push: ['grace_s'],
} as const satisfies Record<ServiceKind, readonly (keyof typeof defaults)[]>;

function clearOtherKinds(merged: Omit<Definition, 'target'>) {
  const own = new Set<string>(kindFields[merged.kind]);
  for (const fields of Object.values(kindFields)) {
    for (const field of fields) if (!own.has(field)) Object.assign(merged, { [field]: defaults[field] });
  }
}

/**
 * The whole definition from what was sent (a create, or a stored service with a patch over it), and what becomes of
 * its credentials. `storedUrl` is the URL a patch starts from: credentials kept from before stay only while the URL
 * keeps their origin, so they never go to a host they were not given for.
 */
export function checkDefinition(
  input: CreateService,
  storedUrl: string | null = null,
  storedTarget: string | null = null,
): { definition: Definition } & Secrets {
  const { basic_auth: sentCredentials, headers: sentHeaders, ...fields } = input;
  const merged: Omit<Definition, 'target'> = { ...defaults, ...fields };
  let target: string;
  let credentials: CredentialsChange = sentCredentials;
  let headers: HeadersChange = sentHeaders;
  if (merged.kind !== 'http') {
    if (sentCredentials) invalid('basic_auth applies to http checks only');
    if (sentHeaders) invalid('headers apply to http checks only');
    credentials = null;
    headers = null;
    merged.url = null;
  }
  clearOtherKinds(merged);
  if (merged.kind === 'http') {
    if (!merged.url) invalid('url is required for an http check');
    const url = httpUrl(merged.url, 'url');
    notMetadata(url.hostname.replace(/^\[(.*)\]$/, '$1'), 'url');
    const inUrl = takeCredentials(url);
    if (inUrl && sentCredentials !== undefined) {
      invalid('send the credentials in url or in basic_auth, not both');
    }
    credentials = inUrl ?? sentCredentials;
    // Header names are case-insensitive: kept (and shown) in lower case.
    if (headers)
      headers = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
      );
    if (storedUrl !== null && URL.parse(storedUrl)?.origin !== url.origin) {
      // Kept credentials and headers go only to the origin they were given for.
      if (credentials === undefined) credentials = null;
      if (headers === undefined) headers = null;
    }
    if (merged.json_query && !merged.json_query.pointer.match(/^(\/.*)?$/)) {
      invalid('json_query.pointer must be a JSON Pointer: empty or starting with /');
    }
    // An empty body is none (a form sends its blank field).
    if (!merged.body) merged.body = null;
    if (merged.body !== null && (merged.method === 'GET' || merged.method === 'HEAD')) {
      invalid(`a ${merged.method} check sends no body`);
    }
    target = httpTarget(url);
    merged.url = url.href;
    // Kept for matching a device by address and for display; the URL is what is checked.
    merged.host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    merged.port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  } else if (merged.kind === 'push') {
    target = storedTarget?.startsWith('push://') ? storedTarget : `push://${randomUUID()}`;
    merged.host = null;
    merged.port = null;
  } else if (merged.kind === 'ping') {
    merged.host = checkedHost(merged.host, 'ping');
    merged.port = null;
    merged.packets ??= 3;
    target = `ping://${bracketed(merged.host)}`;
  } else if (merged.kind === 'dns') {
    merged.host = checkedHost(merged.host, 'dns');
    merged.port = checkedPort(merged.port, 'dns', 53);
    if (!merged.dns_name) invalid('dns_name is required for a dns check');
    const name = merged.dns_name.trim().replace(/\.$/, '').toLowerCase();
    // Underscores too: SRV names (_http._tcp.lan) and TXT names (_dmarc.example.com) carry them.
    if (
      !/^[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/.test(name) ||
      name.length > 253
    ) {
      invalid(`dns_name "${merged.dns_name}" is not a DNS name`);
    }
    merged.dns_name = name;
    merged.dns_type ??= 'A';
    target = `dns://${hostPort(merged.host, merged.port)}/${name}/${merged.dns_type}`;
  } else if (merged.kind === 'tls') {
    merged.host = checkedHost(merged.host, 'tls');
    merged.port = checkedPort(merged.port, 'tls', 443);
    merged.warn_days ??= 14;
    target = `tls://${hostPort(merged.host, merged.port)}`;
  } else {
    merged.host = checkedHost(merged.host, 'tcp');
    merged.port = checkedPort(merged.port, 'tcp');
    target = tcpTarget(merged.host, merged.port);
  }
  if (merged.status_min > merged.status_max) invalid('status_min must not be above status_max');
  if (merged.link) {
    const link = httpUrl(merged.link, 'link');
    if (link.username !== '' || link.password !== '')
      invalid('link must not carry credentials (it is shown)');
    merged.link = link.href;
  }
  if (merged.device_mac) {
    const mac = normaliseMac(merged.device_mac);
    if (!mac) throw hubError('INVALID_MAC', 'device_mac', merged.device_mac);
    merged.device_mac = mac;
  }
  if (merged.host_check && !merged.resource_id && !merged.device_mac) {
    invalid('host_check needs the resource_id or device_mac it is the check of');
  }
  return { definition: { ...merged, target }, credentials, headers };
}
