// A neighbour table for device scans (DEVICES_ARP_FILE): a file in /proc/net/arp's form, its rows set by the test.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

interface Teardown {
  teardown(fn: () => unknown): void;
}

const header = 'IP address       HW type     Flags       HW address            Mask     Device\n';

/** A complete entry (flags 0x2) of `mac` at `ip`, as the kernel lists it. */
export const arpRow = (ip: string, mac: string) =>
  `${ip.padEnd(16)} 0x1         0x2         ${mac}     *        eth0`;

export async function fakeArpTable(t: Teardown) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-arp-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'arp');
  /** Replaces the table's rows. */
  const write = (rows: string[]) => writeFile(file, header + rows.map((row) => `${row}\n`).join(''));
  await write([]);
  return { file, write };
}
