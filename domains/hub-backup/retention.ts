// Archive names and retention. An archive is named by the moment it was made (UTC): ops-hub-backup-
// 20261126T031700Z.zip, `.zip.enc` when encrypted. Retention keeps the newest archive of each of the last N days that
// have one, and the newest of each of the last M weeks (weeks start on Monday, UTC); the rest are removed. Files
// with other names (an archive written elsewhere with --out, copied in by hand) are never touched.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';

const namePattern = /^ops-hub-backup-(\d{8}T\d{6}Z)(-[0-9a-f]{4})?\.(zip|zip\.enc)$/;

export function isArchiveName(name: string): boolean {
  return namePattern.test(name);
}

function stamp(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** A new archive's path in `dir`, never one that exists already. */
export function archivePath(dir: string, at: Date, encrypted: boolean): string {
  const extension = encrypted ? 'zip.enc' : 'zip';
  const plain = path.join(dir, `ops-hub-backup-${stamp(at)}.${extension}`);
  if (!existsSync(plain)) return plain;
  return path.join(dir, `ops-hub-backup-${stamp(at)}-${randomBytes(2).toString('hex')}.${extension}`);
}

function madeAt(name: string): Date | null {
  const match = namePattern.exec(name);
  if (!match) return null;
  const s = match[1];
  return new Date(
    `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11)}:${s.slice(11, 13)}:${s.slice(13, 15)}Z`,
  );
}

/** Which of these archive names to keep. */
export function archivesToKeep(names: readonly string[], keepDaily: number, keepWeekly: number): Set<string> {
  const dated = names
    .map((name) => ({ name, at: madeAt(name) }))
    .filter((entry): entry is { name: string; at: Date } => entry.at !== null)
    .sort((a, b) => b.at.getTime() - a.at.getTime() || b.name.localeCompare(a.name));
  const keep = new Set<string>();
  const newestOf = (key: (at: Date) => number, count: number) => {
    const seen = new Set<number>();
    for (const entry of dated) {
      const bucket = key(entry.at);
      if (seen.has(bucket)) continue;
      if (seen.size >= count) break;
      seen.add(bucket);
      keep.add(entry.name);
    }
  };
  const day = (at: Date) => Math.floor(at.getTime() / 86_400_000);
  // 1 January 1970 was a Thursday: shifting by three days starts each week on a Monday.
  newestOf(day, keepDaily);
  newestOf((at) => Math.floor((day(at) + 3) / 7), keepWeekly);
  return keep;
}

/** Removes the archives retention does not keep; answers the names removed. */
export async function applyRetention(dir: string, keepDaily: number, keepWeekly: number): Promise<string[]> {
  const names = (await readdir(dir)).filter(isArchiveName);
  const keep = archivesToKeep(names, keepDaily, keepWeekly);
  const removed = names.filter((name) => !keep.has(name));
  for (const name of removed) await rm(path.join(dir, name), { force: true });
  return removed.sort();
}
