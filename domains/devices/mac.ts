// MAC addresses: one stored form (lowercase, colon-separated) from the common written forms, the locally
// administered ("random", private) bit, and the vendor from the IEEE registry shipped offline in `oui-data`.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { lazy } from '../../lib/lazy.ts';

/**
 * `AA:BB:CC:DD:EE:FF`, `AA-BB-CC-DD-EE-FF`, `aabb.ccdd.eeff` and `AABBCCDDEEFF`, any case, to `aa:bb:cc:dd:ee:ff`;
 * null for anything else.
 */
export function normaliseMac(input: string): string | null {
  const text = input.trim().toLowerCase();
  let hex: string | null = null;
  if (/^[0-9a-f]{2}([:-])[0-9a-f]{2}(\1[0-9a-f]{2}){4}$/.test(text)) hex = text.replace(/[:-]/g, '');
  else if (/^[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}$/.test(text)) hex = text.replace(/\./g, '');
  else if (/^[0-9a-f]{12}$/.test(text)) hex = text;
  if (hex === null) return null;
  return hex.match(/../g)?.join(':') ?? null;
}

/** Set on the first octet of an address that is not the maker's: phones' private Wi-Fi addresses, VMs, containers. */
export function isLocallyAdministered(mac: string): boolean {
  return (Number.parseInt(mac.slice(0, 2), 16) & 0x02) !== 0;
}

/** Group addresses (broadcast, multicast) never name one device. */
export function isGroupAddress(mac: string): boolean {
  return (Number.parseInt(mac.slice(0, 2), 16) & 0x01) !== 0;
}

export function isUsableDeviceMac(mac: string): boolean {
  return mac !== '00:00:00:00:00:00' && !isGroupAddress(mac);
}

// The registry's keys are upper-case hex prefixes of 6 (MA-L), 7 (MA-M) or 9 (MA-S) digits; values are the
// organisation's name, then its address on further lines. About 5 MB: read on the first scan, not at start.
const registry = lazy(async () => {
  const file = createRequire(import.meta.url).resolve('oui-data');
  return JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
});

/** The maker of a (globally administered) address by its longest registered prefix, or null. */
export async function vendorOf(mac: string): Promise<string | null> {
  if (isLocallyAdministered(mac)) return null;
  const hex = mac.replace(/:/g, '').toUpperCase();
  const table = await registry();
  for (const length of [9, 7, 6]) {
    const entry = table[hex.slice(0, length)];
    if (entry) return entry.split('\n')[0].trim() || null;
  }
  return null;
}
