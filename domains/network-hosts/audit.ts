// The network audit: simple findings over the host inventory (hosts gone quiet, never seen, sharing an address,
// missing role, operating system or address).
import type { NetworkHostRow } from './store.ts';

export const findingKinds = [
  'duplicate_ip',
  'not_seen_recently',
  'never_seen',
  'missing_ip',
  'missing_role',
  'missing_os',
] as const;
export type FindingKind = (typeof findingKinds)[number];

export interface Finding {
  kind: FindingKind;
  severity: 'warning' | 'info';
  host_ids: string[];
  message: string;
}

const dayMs = 86_400_000;

export function auditHosts(hosts: NetworkHostRow[], now: Date, staleAfterDays: number): Finding[] {
  const findings: Finding[] = [];
  const byIp = new Map<string, NetworkHostRow[]>();
  for (const host of hosts) {
    if (host.ip !== null) byIp.set(host.ip, [...(byIp.get(host.ip) ?? []), host]);
  }
  for (const [ip, sharing] of byIp) {
    if (sharing.length < 2) continue;
    findings.push({
      kind: 'duplicate_ip',
      severity: 'warning',
      host_ids: sharing.map((host) => host.id),
      message: `${ip} is recorded for ${sharing.length} hosts: ${sharing.map((host) => host.hostname).join(', ')}`,
    });
  }
  for (const host of hosts) {
    const one = (kind: FindingKind, severity: Finding['severity'], message: string) =>
      findings.push({ kind, severity, host_ids: [host.id], message: `${host.hostname}: ${message}` });
    if (host.last_seen_at === null) {
      one('never_seen', 'warning', 'never seen on the network');
    } else {
      const days = Math.floor((now.getTime() - new Date(host.last_seen_at).getTime()) / dayMs);
      if (days >= staleAfterDays) {
        one(
          'not_seen_recently',
          'warning',
          `not seen for ${days} days (last ${new Date(host.last_seen_at).toISOString()})`,
        );
      }
    }
    if (host.ip === null) one('missing_ip', 'info', 'no IP address recorded');
    if (host.role.trim() === '') one('missing_role', 'info', 'no role recorded');
    if (host.os.trim() === '') one('missing_os', 'info', 'no operating system recorded');
  }
  return findings;
}
