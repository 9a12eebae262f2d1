// SVG to PNG, locally, and the cache in front of it. Rendering is resvg (a Rust renderer; renderAsync runs it off
// the event loop) with system fonts off and one bundled font (Inter Bold, for fallback tiles and set icons holding
// text), so a render looks the same on every machine and never reads anything but the SVG it is given: set SVGs
// reach it sanitised (local references only) and brand SVGs are built here from the package's path data.
//
// Renders are cached by a key naming everything the output depends on (source, its content hash for set icons,
// colour, size): in memory and on disk under DATA_DIR/icon-cache, so a restart does not render again either, each
// capped in bytes with the least recently used going first (the disk cap is ICON_CACHE_MAX_MB). A key never changes
// meaning, so nothing needs invalidating. Sizes snap to a fixed list, so one icon has at most ten renders per colour.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { lazy } from '../../lib/lazy.ts';

// The native renderer is loaded on the first render, not at start (README, "Resources").
const resvg = lazy(() => import('@resvg/resvg-js'));

const fontFile = createRequire(import.meta.url).resolve('@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf');

/** How many renders this process has done: lets tests and the benchmark tell a cache hit from a render. */
export const renderStats = { renders: 0 };

/** The pixel sizes rendered; any other size asked for gets the next one up. */
export const iconSizes = [16, 24, 32, 48, 64, 96, 128, 192, 256, 512] as const;

/** The smallest listed size at least `size` (the largest for anything above it). */
export function snapSize(size: number): number {
  return iconSizes.find((listed) => listed >= size) ?? iconSizes[iconSizes.length - 1];
}

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

export interface RenderCacheOptions {
  dir: string;
  /** Bytes the files under `dir` may take together (ICON_CACHE_MAX_MB); the least recently used go first. */
  maxDiskBytes: number;
  /** Bytes of images kept in memory. */
  maxMemoryBytes?: number;
}

/** Files the cache writes: the hex SHA-256 of the key. Anything else in the folder is not the cache's. */
const cacheFile = /^[0-9a-f]{64}\.png$/;

export class RenderCache {
  /** Least recently used first (a Map keeps insertion order; a hit moves its entry to the end). */
  readonly #memory = new Map<string, CachedImage & { file: string }>();
  #memoryBytes = 0;
  readonly #maxMemoryBytes: number;
  readonly #dir: string;
  readonly #maxDiskBytes: number;
  /** The files on disk, name to size, least recently used first: read from the folder on first use. */
  #disk: Promise<Map<string, number>> | null = null;
  /** The same map once read, so a hit in memory counts as a use of its file too, without waiting. */
  #diskRead: Map<string, number> | null = null;
  #diskBytes = 0;
  readonly #pending = new Map<string, Promise<CachedImage>>();

  constructor(options: RenderCacheOptions) {
    this.#dir = options.dir;
    this.#maxDiskBytes = options.maxDiskBytes;
    this.#maxMemoryBytes = options.maxMemoryBytes ?? 16 * 1024 * 1024;
  }

  /** How many bytes the files of the cache hold now. */
  async diskBytes(): Promise<number> {
    await this.#diskIndex();
    return this.#diskBytes;
  }

  #remember(key: string, image: CachedImage & { file: string }): CachedImage {
    const known = this.#memory.get(key);
    if (known) this.#memoryBytes -= known.bytes.length;
    this.#memory.delete(key);
    this.#memory.set(key, image);
    this.#memoryBytes += image.bytes.length;
    const size = this.#diskRead?.get(image.file);
    if (size !== undefined) {
      this.#diskRead?.delete(image.file);
      this.#diskRead?.set(image.file, size);
    }
    for (const [oldest, dropped] of this.#memory) {
      if (this.#memoryBytes <= this.#maxMemoryBytes || this.#memory.size <= 1) break;
      this.#memory.delete(oldest);
      this.#memoryBytes -= dropped.bytes.length;
    }
    return image;
  }

  /**
   * From memory, else from disk, else made by `make` (once, however many ask at the same time) and kept. `make` runs
   * only for an image in neither place: where it throws (a render refused), nothing is kept and the error is the
   * caller's.
   */
  get(key: string, make: () => Promise<Buffer>): Promise<CachedImage> | CachedImage {
    const hit = this.#memory.get(key);
    if (hit) return this.#remember(key, hit);
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.#load(key, make).finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }

  /** The folder as found: files by last use (their modification time, which a read from disk renews). */
  #diskIndex(): Promise<Map<string, number>> {
    this.#disk ??= (async () => {
      const names = await readdir(this.#dir).catch(() => [] as string[]);
      const files: { name: string; size: number; used: number }[] = [];
      for (const name of names) {
        const file = path.join(this.#dir, name);
        // A temporary file is what a write cut short left behind.
        if (!cacheFile.test(name)) {
          if (name.endsWith('.tmp')) await rm(file, { force: true });
          continue;
        }
        const info = await stat(file).catch(() => null);
        if (info?.isFile()) files.push({ name, size: info.size, used: info.mtimeMs });
      }
      files.sort((a, b) => a.used - b.used);
      const index = new Map(files.map((file) => [file.name, file.size]));
      this.#diskBytes = files.reduce((sum, file) => sum + file.size, 0);
      await this.#evict(index);
      this.#diskRead = index;
      return index;
    })();
    return this.#disk;
  }

  /** Removes the least recently used files until the folder fits its cap. */
  async #evict(index: Map<string, number>): Promise<void> {
    for (const [name, size] of index) {
      if (this.#diskBytes <= this.#maxDiskBytes) break;
      index.delete(name);
      this.#diskBytes -= size;
      await rm(path.join(this.#dir, name), { force: true });
    }
  }

  async #load(key: string, make: () => Promise<Buffer>): Promise<CachedImage> {
    const name = `${createHash('sha256').update(key).digest('hex')}.png`;
    const file = path.join(this.#dir, name);
    const index = await this.#diskIndex();
    const size = index.get(name);
    if (size !== undefined) {
      const bytes = await readFile(file).catch(() => null);
      index.delete(name);
      if (bytes) {
        index.set(name, size);
        const now = new Date();
        await utimes(file, now, now).catch(() => undefined);
        return this.#remember(key, { bytes, etag: strongEtag(bytes), file: name });
      }
      this.#diskBytes -= size;
    }
    const bytes = await make();
    await mkdir(this.#dir, { recursive: true });
    // Written under a temporary name and renamed, so a reader never sees half a file.
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, file);
    index.set(name, bytes.length);
    this.#diskBytes += bytes.length;
    await this.#evict(index);
    return this.#remember(key, { bytes, etag: strongEtag(bytes), file: name });
  }
}
