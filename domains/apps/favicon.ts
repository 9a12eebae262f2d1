// An app's own icon, found from its href when it has no iconRef: the page's <link rel="icon"> (or apple-touch-icon)
// links, then /favicon.ico at its origin. Every fetch goes through the guarded client (private addresses only as
// INGEST_ALLOW_PRIVATE lists them), with small size limits; what comes back must say it is an image and be one by
// its bytes. It is kept as PNG: a PNG as it is, an SVG sanitised then rendered, JPEG/GIF/WebP rendered, an ICO's
// largest picture taken out (PNG inside) or converted (32- and 24-bit bitmaps).
import { crc32, deflateSync } from 'node:zlib';
import { FetchRefusedError, type SafeFetchOptions, safeFetch } from '../../lib/safe-fetch.ts';
import { renderPng } from '../icons/render.ts';
import { sanitiseSvg, sniff } from '../icons/svg.ts';

/** The size a favicon is rendered at when it is not a PNG already. */
const renderSize = 128;
const maxPageBytes = 1024 * 1024;
const maxIconBytes = 256 * 1024;
/** Icon links tried from one page, before /favicon.ico. */
const maxLinks = 4;

export type FaviconResult = { ok: true; png: Buffer; url: string } | { ok: false; reason: string };

type Fetcher = (url: string, options: SafeFetchOptions) => ReturnType<typeof safeFetch>;

/** The icon links of an HTML page, icons before apple-touch-icons, resolved against the page's URL. */
export async function iconLinks(html: string, pageUrl: string): Promise<string[]> {
  const { parseHTML } = await import('linkedom');
  const { document } = parseHTML(html);
  const base = document.querySelector('base[href]')?.getAttribute('href');
  const baseUrl = (base && URL.parse(base, pageUrl)?.href) || pageUrl;
  const found: { url: string; rank: number }[] = [];
  for (const link of document.querySelectorAll('link[rel][href]')) {
    const rel = (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    const rank = rel.includes('icon')
      ? 0
      : rel.some((r: string) => r.startsWith('apple-touch-icon'))
        ? 1
        : -1;
    const url = URL.parse(link.getAttribute('href') ?? '', baseUrl);
    if (rank >= 0 && url && (url.protocol === 'http:' || url.protocol === 'https:')) {
      found.push({ url: url.href, rank });
    }
  }
  return found.sort((a, b) => a.rank - b.rank).map((entry) => entry.url);
}

/** Finds the favicon of the site `href` points at, or why there is none. */
export async function findFavicon(
  href: string,
  options: SafeFetchOptions,
  fetcher: Fetcher = safeFetch,
): Promise<FaviconResult> {
  const reasons: string[] = [];
  const candidates: string[] = [];
  try {
    const page = await fetcher(href, { ...options, maxBytes: maxPageBytes });
    if (page.status >= 200 && page.status < 300 && /html/i.test(page.contentType)) {
      candidates.push(...(await iconLinks(page.body.toString('utf8'), page.url)).slice(0, maxLinks));
    }
  } catch (error) {
    reasons.push(`${href}: ${describe(error)}`);
  }
  const fallback = new URL('/favicon.ico', href).href;
  if (!candidates.includes(fallback)) candidates.push(fallback);
  for (const url of candidates) {
    try {
      const answer = await fetcher(url, { ...options, maxBytes: maxIconBytes });
      if (answer.status < 200 || answer.status > 299) {
        reasons.push(`${url}: HTTP ${answer.status}`);
        continue;
      }
      const type = answer.contentType.toLowerCase();
      if (type && !type.startsWith('image/') && type !== 'application/octet-stream') {
        reasons.push(`${url}: not an image (${type})`);
        continue;
      }
      const png = await asPng(answer.body);
      if (png.ok) return { ok: true, png: png.png, url };
      reasons.push(`${url}: ${png.reason}`);
    } catch (error) {
      reasons.push(`${url}: ${describe(error)}`);
    }
  }
  return { ok: false, reason: reasons.join('; ') };
}

function describe(error: unknown): string {
  if (error instanceof FetchRefusedError) return error.message;
  return (error as Error)?.message ?? 'fetch failed';
}

/** The picture as PNG, checked by its bytes whatever its Content-Type said. */
export async function asPng(
  bytes: Buffer,
): Promise<{ ok: true; png: Buffer } | { ok: false; reason: string }> {
  const type = sniff(bytes);
  switch (type) {
    case 'png':
      return { ok: true, png: bytes };
    case 'xml': {
      const clean = await sanitiseSvg(bytes);
      if (!clean.ok) return clean;
      return { ok: true, png: await renderPng(clean.bytes, renderSize) };
    }
    case 'jpeg':
    case 'gif':
    case 'webp':
      return { ok: true, png: await renderPng(embedded(type, bytes), renderSize) };
    case 'ico':
      return fromIco(bytes);
    default:
      return { ok: false, reason: 'not an image by its bytes' };
  }
}

/** A raster picture inside an SVG, so the SVG renderer turns it into a PNG. */
function embedded(type: string, bytes: Buffer): string {
  const source = `data:image/${type};base64,${bytes.toString('base64')}`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${renderSize}" height="${renderSize}">` +
    `<image href="${source}" width="${renderSize}" height="${renderSize}" preserveAspectRatio="xMidYMid meet"/></svg>`
  );
}

/** The largest picture of an ICO file: a PNG inside as it is, a 32- or 24-bit bitmap converted. */
function fromIco(bytes: Buffer): { ok: true; png: Buffer } | { ok: false; reason: string } {
  const count = bytes.readUInt16LE(4);
  let best: { size: number; offset: number; length: number } | null = null;
  for (let i = 0; i < count; i++) {
    const at = 6 + i * 16;
    if (at + 16 > bytes.length) break;
    const size = (bytes[at] || 256) * (bytes[at + 1] || 256);
    const length = bytes.readUInt32LE(at + 8);
    const offset = bytes.readUInt32LE(at + 12);
    if (offset + length > bytes.length || length < 40) continue;
    if (!best || size > best.size) best = { size, offset, length };
  }
  if (!best) return { ok: false, reason: 'an ICO file without a readable picture' };
  const image = bytes.subarray(best.offset, best.offset + best.length);
  if (sniff(image) === 'png') return { ok: true, png: Buffer.from(image) };
  return bitmapToPng(image);
}

/** An ICO's bitmap (BITMAPINFOHEADER, height doubled for the AND mask, rows bottom-up) as PNG. */
function bitmapToPng(dib: Buffer): { ok: true; png: Buffer } | { ok: false; reason: string } {
  const headerSize = dib.readUInt32LE(0);
  const width = dib.readInt32LE(4);
  const height = Math.abs(dib.readInt32LE(8)) / 2;
  const bits = dib.readUInt16LE(14);
  if (
    headerSize < 40 ||
    width <= 0 ||
    width > 256 ||
    height <= 0 ||
    height > 256 ||
    dib.readUInt32LE(16) !== 0
  ) {
    return { ok: false, reason: 'an ICO bitmap this reader does not take' };
  }
  if (bits !== 32 && bits !== 24) return { ok: false, reason: `an ICO bitmap of ${bits} bits per pixel` };
  const stride = Math.ceil((width * bits) / 32) * 4;
  const maskStride = Math.ceil(width / 32) * 4;
  const maskStart = headerSize + stride * height;
  if (maskStart > dib.length) return { ok: false, reason: 'a truncated ICO bitmap' };
  const hasMask = maskStart + maskStride * height <= dib.length;
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    const source = headerSize + (height - 1 - y) * stride;
    const mask = maskStart + (height - 1 - y) * maskStride;
    const target = y * (width * 4 + 1);
    for (let x = 0; x < width; x++) {
      const pixel = source + x * (bits / 8);
      const out = target + 1 + x * 4;
      rows[out] = dib[pixel + 2];
      rows[out + 1] = dib[pixel + 1];
      rows[out + 2] = dib[pixel];
      const masked = hasMask && (dib[mask + (x >> 3)] >> (7 - (x & 7))) & 1;
      rows[out + 3] = bits === 32 ? dib[pixel + 3] : masked ? 0 : 255;
    }
  }
  return { ok: true, png: encodePng(width, height, rows) };
}

/** An 8-bit RGBA PNG from rows already prefixed with filter type 0. */
export function encodePng(width: number, height: number, rows: Buffer): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
