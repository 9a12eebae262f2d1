// Which uploaded files become icons: the name decides the intended type (`.svg` or `.png`, nothing else), the
// bytes must agree (the PNG signature; for SVG a well-formed XML document whose root is <svg>), and every SVG is
// sanitised before it is kept. Folders are flattened and names normalised to [a-z0-9-]; each refusal has a reason.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { NewIcon } from './store.ts';
import { isPng, sanitiseSvg, sniff } from './svg.ts';

export interface AcceptedIcon extends NewIcon {
  /** The file name as uploaded (its path inside the archive). */
  file: string;
}

export interface RejectedFile {
  file: string;
  reason: string;
}

export const iconNamePattern = '^[a-z0-9-]{1,100}$';

/** `Brand Logos/Home Assistant.SVG` → `home-assistant`; empty when nothing usable is left. */
export function normaliseName(stem: string): string {
  return stem
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}

const bytesSay: Record<string, string> = {
  png: 'a PNG',
  jpeg: 'a JPEG',
  gif: 'a GIF',
  webp: 'a WebP image',
  ico: 'an ICO icon',
  xml: 'XML or text',
  unknown: 'of no known image type',
};

/** One file as an icon, or why it is refused. `name` overrides the name taken from the file name. */
export async function takeIcon(
  file: string,
  bytes: Buffer,
  name?: string,
): Promise<AcceptedIcon | RejectedFile> {
  const base = path.posix.basename(file.replace(/\\/g, '/'));
  const ext = path.posix.extname(base).slice(1).toLowerCase();
  const said = bytesSay[sniff(bytes)];
  if (ext !== 'svg' && ext !== 'png') {
    const type = ext ? `.${ext}` : 'a file without an extension';
    return { file, reason: `only .svg and .png icons are taken, not ${type} (the bytes are ${said})` };
  }
  const iconName = name ?? normaliseName(base.slice(0, -(ext.length + 1)));
  if (!iconName) return { file, reason: 'the file name has no letters or digits to name the icon by' };
  if (bytes.length === 0) return { file, reason: 'the file is empty' };
  if (ext === 'png') {
    if (!isPng(bytes)) return { file, reason: `named .png but the bytes are ${said}, not a PNG` };
    return { file, name: iconName, type: 'png', bytes, sha256: sha256(bytes) };
  }
  const svg = await sanitiseSvg(bytes);
  if (!svg.ok) return { file, reason: svg.reason };
  return { file, name: iconName, type: 'svg', bytes: svg.bytes, sha256: sha256(svg.bytes) };
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Every file of an archive, sorted into accepted and rejected; a second file with a taken name is refused. */
export async function takeIcons(
  files: { path: string; bytes: Buffer }[],
): Promise<{ accepted: AcceptedIcon[]; rejected: RejectedFile[] }> {
  const accepted: AcceptedIcon[] = [];
  const rejected: RejectedFile[] = [];
  const taken = new Map<string, string>();
  for (const { path: file, bytes } of files) {
    const result = await takeIcon(file, bytes);
    if (!('name' in result)) {
      rejected.push(result);
      continue;
    }
    const first = taken.get(result.name);
    if (first !== undefined) {
      rejected.push({ file, reason: `the name "${result.name}" is already taken by ${first}` });
      continue;
    }
    taken.set(result.name, file);
    accepted.push(result);
  }
  return { accepted, rejected };
}
