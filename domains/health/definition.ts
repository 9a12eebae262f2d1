// A monitored service's definition, checked and normalised: the check fields its kind uses (the others cleared) and
// its target, the one identity of what it checks: http `scheme://host:port/path`, tcp `tcp://host:port`. Two services
// (curated or discovered) never share a target; a push service (checked by the heartbeats it sends) has a target of its
// own making, `push://<uuid>`, kept across edits. Credentials written into the URL (`https://user:pass@nas/`) are taken
// out of it: they become the check's basic auth, kept apart and never shown (the URL is, agents included).
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { hubError } from '../../lib/errors.ts';
import { isCloudMetadata } from '../../lib/safe-fetch.ts';
import { normaliseMac } from '../devices/mac.ts';
import type { CreateService } from './schema.ts';

export interface Definition {
  name: string;
  category: string;
  kind: 'http' | 'tcp' | 'push';
  url: string | null;
  host: string | null;
  port: number | null;
  status_min: number;
  status_max: number;
  keyword: string | null;
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

export const defaults = {
  category: 'Services',
  status_min: 200,
  status_max: 399,
  keyword: null,
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

export function tcpTarget(host: string, port: number): string {
  const name = host.toLowerCase();
  return `tcp://${isIP(name) === 6 ? `[${name}]` : name}:${port}`;
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
): { definition: Definition; credentials: CredentialsChange } {
  const { basic_auth: sentCredentials, ...fields } = input;
  const merged = { ...defaults, ...fields };
  let target: string;
  let credentials: CredentialsChange = sentCredentials;
  if (merged.kind === 'http') {
    if (!merged.url) invalid('url is required for an http check');
    const url = httpUrl(merged.url, 'url');
    notMetadata(url.hostname.replace(/^\[(.*)\]$/, '$1'), 'url');
    const inUrl = takeCredentials(url);
    if (inUrl && sentCredentials !== undefined) {
      invalid('send the credentials in url or in basic_auth, not both');
    }
    credentials = inUrl ?? sentCredentials;
    if (credentials === undefined && storedUrl !== null && URL.parse(storedUrl)?.origin !== url.origin) {
      credentials = null;
    }
    target = httpTarget(url);
    merged.url = url.href;
    // Kept for matching a device by address and for display; the URL is what is checked.
    merged.host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    merged.port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  } else if (merged.kind === 'push') {
    if (sentCredentials) invalid('basic_auth applies to http checks only');
    credentials = null;
    target = storedTarget?.startsWith('push://') ? storedTarget : `push://${randomUUID()}`;
    merged.url = null;
    merged.host = null;
    merged.port = null;
    merged.keyword = null;
  } else {
    if (!merged.host) invalid('host is required for a tcp check');
    const host = merged.host.trim().replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) === 0 && !hostPattern.test(host))
      invalid(`host "${merged.host}" is not a host name or IP address`);
    notMetadata(host, 'host');
    if (sentCredentials) invalid('basic_auth applies to http checks only');
    credentials = null;
    if (merged.port === null || !Number.isInteger(merged.port) || merged.port < 1 || merged.port > 65535) {
      invalid('port must be an integer from 1 to 65535 for a tcp check');
    }
    target = tcpTarget(host, merged.port);
    merged.host = host;
    merged.url = null;
    merged.keyword = null;
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
  return { definition: { ...merged, target }, credentials };
}
