// A monitored service's definition, checked and normalised: the check fields its kind uses (the others cleared) and
// its target, the one identity of what it checks: http `scheme://host:port/path`, tcp `tcp://host:port`. Two services
// (curated or discovered) never share a target.
import { isIP } from 'node:net';
import { hubError } from '../../lib/errors.ts';
import { normaliseMac } from '../devices/mac.ts';
import type { CreateService } from './schema.ts';

export interface Definition {
  name: string;
  category: string;
  kind: 'http' | 'tcp';
  url: string | null;
  host: string | null;
  port: number | null;
  status_min: number;
  status_max: number;
  keyword: string | null;
  follow_redirects: boolean;
  verify_tls: boolean;
  interval_s: number;
  timeout_ms: number;
  retries: number;
  enabled: boolean;
  external: boolean;
  icon: string | null;
  link: string | null;
  device_mac: string | null;
  notes: string | null;
  target: string;
}

export const defaults = {
  category: 'Services',
  status_min: 200,
  status_max: 399,
  keyword: null,
  follow_redirects: true,
  verify_tls: true,
  interval_s: 60,
  timeout_ms: 5000,
  retries: 0,
  enabled: true,
  external: false,
  icon: null,
  link: null,
  device_mac: null,
  notes: null,
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
    invalid(`${field} "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') invalid(`${field} must be an http(s) URL`);
  if (!url.hostname) invalid(`${field} must name a host`);
  return url;
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

/** The whole definition from what was sent (a create, or a stored service with a patch over it). */
export function checkDefinition(input: CreateService): Definition {
  const merged = { ...defaults, ...input };
  let target: string;
  if (merged.kind === 'http') {
    if (!merged.url) invalid('url is required for an http check');
    const url = httpUrl(merged.url, 'url');
    target = httpTarget(url);
    merged.url = url.href;
    // Kept for matching a device by address and for display; the URL is what is checked.
    merged.host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    merged.port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  } else {
    if (!merged.host) invalid('host is required for a tcp check');
    const host = merged.host.trim().replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) === 0 && !hostPattern.test(host))
      invalid(`host "${merged.host}" is not a host name or IP address`);
    if (merged.port === null || !Number.isInteger(merged.port) || merged.port < 1 || merged.port > 65535) {
      invalid('port must be an integer from 1 to 65535 for a tcp check');
    }
    target = tcpTarget(host, merged.port);
    merged.host = host;
    merged.url = null;
    merged.keyword = null;
  }
  if (merged.status_min > merged.status_max) invalid('status_min must not be above status_max');
  if (merged.link) merged.link = httpUrl(merged.link, 'link').href;
  if (merged.device_mac) {
    const mac = normaliseMac(merged.device_mac);
    if (!mac) throw hubError('INVALID_MAC', 'device_mac', merged.device_mac);
    merged.device_mac = mac;
  }
  return { ...merged, target };
}
