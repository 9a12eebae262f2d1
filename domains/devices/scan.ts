// What a device scan reads: the kernel's neighbour table (/proc/net/arp text, and `ip -j neigh` JSON where the
// command exists), a dnsmasq leases file for host names, and an optional scan command's `ip<TAB>mac<TAB>vendor`
// lines (arp-scan --plain). Incomplete entries (no address yet, a failed resolution) are skipped.
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { Config } from '../../config/index.ts';
import { CommandError, commandProblem, runCommand, splitCommand } from '../../lib/command.ts';
import { isUsableDeviceMac, normaliseMac } from './mac.ts';

export interface Sighting {
  mac: string;
  ip: string;
  /** The vendor a scan command reported (used when the registry has none). */
  vendorHint?: string;
}

export interface ScanResult {
  seen: Map<string, Sighting>;
  /** Host names from DHCP leases, by MAC. */
  hostnames: Map<string, string>;
  /** Sources read, for the job's log. */
  sources: string[];
}

function sighting(rawMac: string | undefined, ip: string | undefined, vendorHint?: string): Sighting | null {
  if (!rawMac || !ip || isIP(ip) === 0) return null;
  const mac = normaliseMac(rawMac);
  if (!mac || !isUsableDeviceMac(mac)) return null;
  return vendorHint ? { mac, ip, vendorHint } : { mac, ip };
}

/** /proc/net/arp: `IP address  HW type  Flags  HW address  Mask  Device`; flags 0x0 is an incomplete entry. */
export function parseProcArp(text: string): Sighting[] {
  const found: Sighting[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [ip, , flags, mac] = line.trim().split(/\s+/);
    if (!flags || (Number.parseInt(flags, 16) & 0x2) === 0) continue;
    const entry = sighting(mac, ip);
    if (entry) found.push(entry);
  }
  return found;
}

interface NeighEntry {
  dst?: unknown;
  lladdr?: unknown;
  state?: unknown;
}

/** `ip -j neigh`: `[{ dst, dev, lladdr, state: ["REACHABLE"] }]`; FAILED and INCOMPLETE entries carry no lladdr. */
export function parseIpNeigh(text: string): Sighting[] {
  const entries: unknown = JSON.parse(text);
  if (!Array.isArray(entries)) throw new Error('ip -j neigh did not print a JSON array');
  const found: Sighting[] = [];
  for (const entry of entries as NeighEntry[]) {
    const states = Array.isArray(entry.state) ? entry.state : [];
    if (states.includes('FAILED') || states.includes('INCOMPLETE')) continue;
    if (typeof entry.lladdr !== 'string' || typeof entry.dst !== 'string') continue;
    const sighted = sighting(entry.lladdr, entry.dst);
    if (sighted) found.push(sighted);
  }
  return found;
}

/** dnsmasq leases: `expiry mac ip hostname client-id`, `*` for an unknown host name. MAC to host name. */
export function parseDnsmasqLeases(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [, rawMac, , hostname] = line.trim().split(/\s+/);
    const mac = rawMac ? normaliseMac(rawMac) : null;
    if (mac && hostname && hostname !== '*') names.set(mac, hostname);
  }
  return names;
}

/** arp-scan --plain and alike: `ip<TAB>mac<TAB>vendor` lines; anything else is ignored. */
export function parseScanOutput(text: string): Sighting[] {
  const found: Sighting[] = [];
  for (const line of text.split('\n')) {
    const [ip, mac, vendor] = line.split('\t').map((part) => part.trim());
    const entry = sighting(mac, ip, vendor || undefined);
    if (entry) found.push(entry);
  }
  return found;
}

type ScanConfig = Pick<Config, 'devices'>;

async function commandOutput(command: string, timeoutMs: number, optional: boolean): Promise<string | null> {
  const argv = splitCommand(command);
  if (argv.length === 0) return null;
  try {
    const result = await runCommand(argv, { timeoutMs, maxOutputBytes: 8 * 1024 * 1024 });
    const problem = commandProblem(`"${argv[0]}"`, result, timeoutMs);
    if (problem) throw new Error(problem);
    return result.stdout;
  } catch (error) {
    if (optional && error instanceof CommandError && error.reason === 'not-found') return null;
    throw error;
  }
}

/**
 * Reads every configured source. A configured source that fails throws (the scan then changes nothing, rather than
 * marking every device absent); the default neighbour sources are skipped where this host has none.
 */
export async function gather(config: ScanConfig): Promise<ScanResult> {
  const seen = new Map<string, Sighting>();
  const sources: string[] = [];
  // A later source's address for a MAC wins: the scan command's answer is the freshest.
  const add = (list: Sighting[]) => {
    for (const entry of list) seen.set(entry.mac, { ...seen.get(entry.mac), ...entry });
  };
  try {
    add(parseProcArp(await readFile(config.devices.arpFile, 'utf8')));
    sources.push(config.devices.arpFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`${config.devices.arpFile} could not be read: ${(error as Error).message}`);
    }
  }
  if (config.devices.neighCommand) {
    const output = await commandOutput(config.devices.neighCommand, config.devices.scanTimeoutMs, true);
    if (output !== null) {
      // IPv4 first: an IPv6 neighbour only names a device's address when no IPv4 one does.
      const entries = parseIpNeigh(output);
      add(entries.filter((entry) => isIP(entry.ip) === 6 && !seen.has(entry.mac)));
      add(entries.filter((entry) => isIP(entry.ip) === 4));
      sources.push(config.devices.neighCommand);
    }
  }
  if (config.devices.scanCommand) {
    const output = await commandOutput(config.devices.scanCommand, config.devices.scanTimeoutMs, false);
    add(parseScanOutput(output ?? ''));
    sources.push(config.devices.scanCommand);
  }
  let hostnames = new Map<string, string>();
  if (config.devices.dhcpLeasesFile) {
    try {
      hostnames = parseDnsmasqLeases(await readFile(config.devices.dhcpLeasesFile, 'utf8'));
      sources.push(config.devices.dhcpLeasesFile);
    } catch (error) {
      throw new Error(
        `DHCP_LEASES_FILE ${config.devices.dhcpLeasesFile} could not be read: ${(error as Error).message}`,
      );
    }
  }
  return { seen, hostnames, sources };
}
