// Which private addresses the hub's outgoing requests may reach: the owner's allow list (INGEST_ALLOW_PRIVATE) and
// the cloud metadata services no setting opens. Apart from lib/safe-fetch.ts, which enforces them, so that the
// configuration parses the list without loading the HTTP client.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Private targets the owner lets the guard reach (INGEST_ALLOW_PRIVATE): address ranges, and host names whose
 * addresses are allowed whatever range they fall in. Cloud metadata addresses stay refused either way.
 */
export interface PrivateAllowList {
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  hosts: ReadonlySet<string>;
  /** The list as configured, for messages. */
  text: string;
}

// Instance metadata services hand out cloud credentials: no setting can make them reachable.
const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254'].map((address) => ipaddr.parse(address));
export const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata']);

export function normalHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** A cloud metadata service by address (any spelling a socket or URL gives) or by its well-known host name. */
export function isCloudMetadata(host: string): boolean {
  return isMetadataAddress(host) || METADATA_HOSTS.has(normalHost(host));
}

export function isMetadataAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) return false;
  let ip = ipaddr.parse(bare);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  return METADATA_ADDRESSES.some((meta) => meta.kind() === ip.kind() && meta.toString() === ip.toString());
}

/**
 * Parses INGEST_ALLOW_PRIVATE: comma-separated CIDRs (`192.168.1.0/24`), single addresses and host names
 * (`wiki.lan`). Throws an Error naming the entry that is malformed or would open a cloud metadata address.
 */
export function parsePrivateAllowList(text: string): PrivateAllowList {
  const ranges: PrivateAllowList['ranges'] = [];
  const hosts = new Set<string>();
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const bare = item.startsWith('[') && item.includes(']') ? item.replace(/^\[|\]/g, '') : item;
    const [address, prefix] = bare.split('/');
    if (isIP(address) !== 0) {
      let range: [ipaddr.IPv4 | ipaddr.IPv6, number];
      try {
        range =
          prefix === undefined
            ? [ipaddr.parse(address), address.includes(':') ? 128 : 32]
            : ipaddr.parseCIDR(bare);
      } catch {
        throw new Error(`has an invalid range "${item}" (expected an address or a CIDR like 192.168.1.0/24)`);
      }
      for (const meta of METADATA_ADDRESSES) {
        if (meta.kind() === range[0].kind() && meta.match(range)) {
          throw new Error(`must not include the cloud metadata address ${meta.toString()} (entry "${item}")`);
        }
      }
      ranges.push(range);
      continue;
    }
    const host = normalHost(item);
    if (!/^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/.test(host) || prefix !== undefined) {
      throw new Error(`has an entry that is neither an address, a CIDR nor a host name: "${item}"`);
    }
    if (METADATA_HOSTS.has(host)) throw new Error(`must not name the cloud metadata host "${item}"`);
    hosts.add(host);
  }
  return { ranges, hosts, text };
}
