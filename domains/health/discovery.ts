// The LAN sweep: a TCP connect to every address of the configured ranges on every configured port, with bounded
// concurrency and a time limit per attempt. An open web port is read once (page title, Server header) to recognise
// the service; any other open port is proposed as a TCP check. Cloud metadata addresses are never swept, whatever
// the ranges say.
import net from 'node:net';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import type { Dispatcher } from 'undici';
import type { Config } from '../../config/index.ts';
import { isCloudMetadata } from '../../lib/address-policy.ts';
import { onFirstUse } from '../../lib/lazy.ts';
import { undici, upstreamAgent } from '../../lib/safe-fetch.ts';
import { eachLimited } from './checks.ts';
import { type Definition, defaults, httpTarget, tcpTarget } from './definition.ts';
import { recognisePort, recogniseWeb, tlsFirstPorts } from './recognise.ts';

/** The host's own IPv4 networks, each cut to its /24 (the default ranges). */
export function hostNetworks(): string[] {
  const ranges = new Set<string>();
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family !== 'IPv4' || address.internal) continue;
      ranges.add(`${ipaddr.IPv4.networkAddressFromCIDR(`${address.address}/24`).toString()}/24`);
    }
  }
  return [...ranges];
}

/**
 * Every host address of the ranges (network and broadcast addresses left out where the range has them), cloud
 * metadata left out too.
 */
export function addressesOf(cidrs: string[]): string[] {
  const out = new Set<string>();
  for (const cidr of cidrs) {
    const [address, prefix] = ipaddr.IPv4.parseCIDR(cidr);
    if (prefix < 16) throw new Error(`range ${cidr} is larger than a /16`);
    const base = ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${prefix}`).toByteArray();
    const start = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
    const size = 2 ** (32 - prefix);
    const [first, last] = prefix <= 30 ? [1, size - 2] : [0, size - 1];
    for (let i = first; i <= last; i++) {
      const n = start + i;
      const address = [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
      if (!isCloudMetadata(address)) out.add(address);
    }
  }
  return [...out];
}

function portOpen(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const verifying = onFirstUse(() => upstreamAgent({ rejectUnauthorized: true, pipelining: 0 }));
const lenient = onFirstUse(() => upstreamAgent({ rejectUnauthorized: false, pipelining: 0 }));
const maxPageBytes = 256 * 1024;

interface WebPage {
  scheme: 'http' | 'https';
  title: string | null;
  server: string | null;
  verified: boolean;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&nbsp;/g, ' ');
}

export function pageTitle(html: string): string | null {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = match ? decodeEntities(match[1]).replace(/\s+/g, ' ').trim() : '';
  return title ? title.slice(0, 200) : null;
}

async function fetchPage(url: string, agent: Dispatcher, timeoutMs: number) {
  const response = await undici().request(url, {
    method: 'GET',
    headers: { 'user-agent': 'ops-hub-discovery', accept: 'text/html,*/*;q=0.5' },
    dispatcher: agent,
    signal: AbortSignal.timeout(timeoutMs),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= maxPageBytes) break;
  }
  response.body.destroy();
  const server = response.headers.server;
  return {
    title: pageTitle(Buffer.concat(chunks).toString('utf8')),
    server: typeof server === 'string' ? server.slice(0, 200) : null,
  };
}

/** What an open port shows over HTTP(S), or null when it does not speak HTTP. */
export async function probeWeb(host: string, port: number, timeoutMs: number): Promise<WebPage | null> {
  const schemes: ('http' | 'https')[] = tlsFirstPorts.has(port) ? ['https', 'http'] : ['http', 'https'];
  for (const scheme of schemes) {
    const url = `${scheme}://${host}:${port}/`;
    try {
      return {
        scheme,
        verified: true,
        ...(await fetchPage(url, scheme === 'https' ? verifying() : lenient(), timeoutMs)),
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (scheme === 'https' && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/i.test(code)) {
        try {
          return { scheme, verified: false, ...(await fetchPage(url, lenient(), timeoutMs)) };
        } catch {
          // Not a web server after all.
        }
      }
    }
  }
  return null;
}

export interface Finding {
  definition: Definition;
  title: string | null;
  server: string | null;
}

type SweepConfig = Pick<Config, 'discovery'>;

/** Sweeps the ranges and turns each open port into a candidate definition. */
export async function sweep(config: SweepConfig): Promise<{ addresses: string[]; findings: Finding[] }> {
  const addresses = addressesOf(config.discovery.cidrs ?? hostNetworks());
  const pairs = addresses.flatMap((host) => config.discovery.ports.map((port) => ({ host, port })));
  const open: { host: string; port: number }[] = [];
  await eachLimited(pairs, config.discovery.concurrency, async (pair) => {
    if (await portOpen(pair.host, pair.port, config.discovery.timeoutMs)) open.push(pair);
  });
  const findings: Finding[] = [];
  await eachLimited(open, Math.min(config.discovery.concurrency, 16), async ({ host, port }) => {
    const page = await probeWeb(host, port, config.discovery.timeoutMs * 2);
    if (page) {
      const url = new URL(`${page.scheme}://${host}:${port}/`);
      const known = recogniseWeb(page);
      findings.push({
        title: page.title,
        server: page.server,
        definition: {
          ...defaults,
          name: known?.name ?? page.title ?? `${host}:${port}`,
          category: known?.category ?? 'Discovered',
          icon: known?.icon ?? null,
          kind: 'http',
          url: url.href,
          host,
          port,
          verify_tls: page.verified,
          enabled: false,
          target: httpTarget(url),
        },
      });
    } else {
      const known = recognisePort(port);
      findings.push({
        title: null,
        server: null,
        definition: {
          ...defaults,
          ...known,
          kind: 'tcp',
          host,
          port,
          enabled: false,
          target: tcpTarget(host, port),
        },
      });
    }
  });
  return { addresses, findings };
}
