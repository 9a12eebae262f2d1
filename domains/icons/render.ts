// SVG to PNG, locally, and the cache in front of it. Rendering is resvg (a Rust renderer; renderAsync runs it off
// the event loop) with system fonts off and one bundled font (Inter Bold, for fallback tiles and set icons holding
// text), so a render looks the same on every machine and never reads anything but the SVG it is given: set SVGs
// reach it sanitised (local references only) and brand SVGs are built here from the package's path data.
//
// Renders are cached by a key naming everything the output depends on (source, its content hash for set icons,
// colour, size): in memory (least recently used first out) and on disk under DATA_DIR/icon-cache, so a restart does
// not render again either. A key never changes meaning, so nothing needs invalidating.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { lazy } from '../../lib/lazy.ts';

// The native renderer is loaded on the first render, not at start (README, "Resources").
const resvg = lazy(() => import('@resvg/resvg-js'));

const fontFile = createRequire(import.meta.url).resolve('@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf');

/** How many renders this process has done: lets tests and the benchmark tell a cache hit from a render. */
export const renderStats = { renders: 0 };

export async function renderPng(svg: string | Buffer, size: number): Promise<Buffer> {
  renderStats.renders++;
  const { renderAsync } = await resvg();
  const image = await renderAsync(svg, {
    fitTo: { mode: 'width', value: size },
    font: { loadSystemFonts: false, fontFiles: [fontFile], defaultFontFamily: 'Inter' },
    logLevel: 'off',
  });
  return image.asPng();
}

/** A background colour of its own for every slug, dark enough for white text. */
export function tileColour(slug: string): string {
  const digest = createHash('sha256').update(slug).digest();
  const hue = digest.readUInt16BE(0) % 360;
  const [s, l] = [0.55, 0.4];
  const f = (n: number) => {
    const k = (n + hue / 30) % 12;
    const value = l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(value * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** The generated tile for a name with no icon: its first letter on its own colour. */
export function fallbackTileSvg(slug: string): string {
  const letter = (slug.match(/[a-z0-9]/i)?.[0] ?? '?').toUpperCase();
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">' +
    `<rect width="64" height="64" rx="12" fill="${tileColour(slug)}"/>` +
    `<text x="32" y="44" text-anchor="middle" font-family="Inter" font-weight="700" font-size="34" fill="#ffffff">${letter}</text>` +
    '</svg>'
  );
}

export interface CachedImage {
  bytes: Buffer;
  etag: string;
}

export function strongEtag(bytes: Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url')}"`;
}

export class RenderCache {
  readonly #memory = new Map<string, CachedImage>();
  readonly #dir: string;
  readonly #maxEntries: number;
  readonly #pending = new Map<string, Promise<CachedImage>>();

  constructor(dir: string, maxEntries = 2000) {
    this.#dir = dir;
    this.#maxEntries = maxEntries;
  }

  #remember(key: string, image: CachedImage): CachedImage {
    this.#memory.delete(key);
    this.#memory.set(key, image);
    if (this.#memory.size > this.#maxEntries) {
      const oldest = this.#memory.keys().next().value;
      if (oldest !== undefined) this.#memory.delete(oldest);
    }
    return image;
  }

  /** From memory, else from disk, else made by `make` (once, however many ask at the same time) and kept. */
  get(key: string, make: () => Promise<Buffer>): Promise<CachedImage> | CachedImage {
    const hit = this.#memory.get(key);
    if (hit) return hit;
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#load(key, make).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  async #load(key: string, make: () => Promise<Buffer>): Promise<CachedImage> {
    const file = path.join(this.#dir, `${createHash('sha256').update(key).digest('hex')}.png`);
    try {
      const bytes = await readFile(file);
      return this.#remember(key, { bytes, etag: strongEtag(bytes) });
    } catch {
      // Not on disk yet: made below.
    }
    const bytes = await make();
    await mkdir(this.#dir, { recursive: true });
    // Written under a temporary name and renamed, so a reader never sees half a file.
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, file);
    return this.#remember(key, { bytes, etag: strongEtag(bytes) });
  }
}
