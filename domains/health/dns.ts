// A DNS query to the resolver a service names (Pi-hole, AdGuard, Unbound ...): Node's c-ares resolver pointed at
// that one server and port, one try within the check's time limit. c-ares asks over UDP and asks again over TCP when
// the answer comes truncated. Each query gets a resolver of its own, so no answer is served from a cache.
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { upstreamAddress } from '../../lib/safe-fetch.ts';
import type { DnsType } from './schema.ts';

export interface DnsResult {
  /** NOERROR, NXDOMAIN, SERVFAIL, REFUSED ... */
  rcode: string;
  answers: string[];
}

// c-ares reports the server's answer code as an error code; these are the answers, the rest are failures to ask.
const rcodes: Record<string, string> = {
  ENODATA: 'NOERROR',
  ENOTFOUND: 'NXDOMAIN',
  ESERVFAIL: 'SERVFAIL',
  EREFUSED: 'REFUSED',
  ENOTIMP: 'NOTIMP',
  EFORMERR: 'FORMERR',
};

async function ask(resolver: Resolver, name: string, type: DnsType): Promise<string[]> {
  switch (type) {
    case 'A':
      return resolver.resolve4(name);
    case 'AAAA':
      return resolver.resolve6(name);
    case 'CNAME':
      return resolver.resolveCname(name);
    case 'NS':
      return resolver.resolveNs(name);
    case 'PTR':
      return resolver.resolvePtr(name);
    case 'TXT':
      return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    case 'MX':
      return (await resolver.resolveMx(name)).map((mx) => `${mx.priority} ${mx.exchange}`);
    case 'SRV':
      return (await resolver.resolveSrv(name)).map(
        (srv) => `${srv.priority} ${srv.weight} ${srv.port} ${srv.name}`,
      );
  }
}

export async function queryDns(
  host: string,
  port: number,
  name: string,
  type: DnsType,
  timeoutMs: number,
): Promise<DnsResult> {
  // The server's address: an IP address as given, a name looked up (never to a cloud metadata address).
  const address = await upstreamAddress(host);
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  resolver.setServers([isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`]);
  try {
    return { rcode: 'NOERROR', answers: await ask(resolver, name, type) };
  } catch (error) {
    const rcode = rcodes[(error as NodeJS.ErrnoException).code ?? ''];
    if (rcode) return { rcode, answers: [] };
    throw error;
  } finally {
    resolver.cancel();
  }
}

/** Whether an answer is the one expected: names compare without case or a final dot, TXT exactly. */
export function answerMatches(answer: string, expected: string, type: DnsType): boolean {
  if (type === 'TXT') return answer === expected;
  const plain = (value: string) => value.trim().replace(/\.$/, '').toLowerCase();
  return plain(answer) === plain(expected);
}
