// Building what icon tests upload: real zip archives (yazl), real PNGs (rendered by resvg), JPEG bytes, multipart
// bodies; and reading a PNG's size from its IHDR chunk.
import { Resvg } from '@resvg/resvg-js';
import yazl from 'yazl';

export const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(body = '<path d="M0 0h24v24H0z"/>'): Buffer {
  return Buffer.from(`<svg xmlns="${SVG_NS}" viewBox="0 0 24 24">${body}</svg>`);
}

export function png(size = 8, colour = '#3366ff'): Buffer {
  const source = `<svg xmlns="${SVG_NS}" width="${size}" height="${size}"><rect width="${size}" height="${size}" fill="${colour}"/></svg>`;
  return Buffer.from(new Resvg(source).render().asPng());
}

/** The start of a JFIF file: what a camera or an editor writes as a .jpg. */
export const jpeg = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  Buffer.from('JFIF\0'),
  Buffer.alloc(200, 0x11),
  Buffer.from([0xff, 0xd9]),
]);

export function pngSize(bytes: Buffer): { width: number; height: number } {
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export interface ZipFileSpec {
  name: string;
  bytes: Buffer;
  /** Unix mode, e.g. 0o120777 for a symbolic link. */
  mode?: number;
  /** Stored uncompressed. */
  store?: boolean;
}

export function zip(files: ZipFileSpec[]): Promise<Buffer> {
  const archive = new yazl.ZipFile();
  for (const file of files) {
    archive.addBuffer(file.bytes, file.name, { mode: file.mode, compress: !file.store });
  }
  archive.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    archive.outputStream.on('error', reject);
  });
}

/** Rewrites an entry's name in place (same length): yazl refuses to write unsafe names, attackers do not. */
export function renameEntry(archive: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('names must have the same length');
  const out = Buffer.from(archive);
  const needle = Buffer.from(from);
  let at = out.indexOf(needle);
  while (at >= 0) {
    Buffer.from(to).copy(out, at);
    at = out.indexOf(needle, at + 1);
  }
  return out;
}

/** Sets the "encrypted" flag of every entry, in the local headers and the central directory. */
export function markEncrypted(archive: Buffer): Buffer {
  const out = Buffer.from(archive);
  for (let i = 0; i < out.length - 4; i++) {
    const signature = out.readUInt32LE(i);
    if (signature === 0x04034b50) out.writeUInt16LE(out.readUInt16LE(i + 6) | 1, i + 6);
    if (signature === 0x02014b50) out.writeUInt16LE(out.readUInt16LE(i + 8) | 1, i + 8);
  }
  return out;
}

type Part =
  | { name: string; value: string }
  | { name: string; filename: string; bytes: Buffer; type?: string };

export function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----ops-hub-icons-boundary';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const head =
      'filename' in part
        ? `Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type ?? 'application/octet-stream'}`
        : `Content-Disposition: form-data; name="${part.name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\n${head}\r\n\r\n`));
    chunks.push('filename' in part ? part.bytes : Buffer.from(part.value));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** The multipart request uploading `archive` as set `name`. */
export function uploadSet(name: string, archive: Buffer, query = '') {
  return {
    method: 'POST' as const,
    url: `/api/icon-sets${query}`,
    ...multipart([
      { name: 'name', value: name },
      { name: 'file', filename: `${name}.zip`, bytes: archive, type: 'application/zip' },
    ]),
  };
}
