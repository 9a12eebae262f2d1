// Reading an uploaded zip archive safely (README, "Icons"). The archive is refused whole, before any entry is
// used, when it breaks a rule: too many entries, too many bytes in all or in one entry, an entry expanding more than
// maxRatio times its compressed size (a zip bomb), an absolute or `..` path (zip slip), a symlink, an encrypted
// entry. Sizes are checked against the central directory first and then again while inflating (yauzl compares the
// bytes it inflates with the declared size), so a lying header cannot get more bytes through.
import type * as Yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { lazyRequire } from './lazy.ts';

// Loaded at the first archive read, not at start.
const yauzl = lazyRequire<typeof Yauzl>('yauzl');

export interface ZipLimits {
  maxEntries: number;
  maxTotalBytes: number;
  maxEntryBytes: number;
  maxRatio: number;
}

export interface ZipEntry {
  /** The path inside the archive, forward slashes, never absolute, never with `..`. */
  path: string;
  bytes: Buffer;
}

export type ZipRefusalKind = 'invalid' | 'unsafe' | 'limit';

/** Why an archive was refused; `kind` tells the caller which status to answer with. */
export class ZipRefusedError extends Error {
  readonly kind: ZipRefusalKind;
  constructor(kind: ZipRefusalKind, message: string) {
    super(message);
    this.name = 'ZipRefusedError';
    this.kind = kind;
  }
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/** An archive in memory, or in a file (an upload streamed to disk): yauzl reads a file where it needs to. */
export type ZipSource = Buffer | { path: string };

function open(source: ZipSource): Promise<ZipFile> {
  const options = {
    lazyEntries: true,
    autoClose: false,
    decodeStrings: true,
    validateEntrySizes: true,
    strictFileNames: false,
  };
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, zip: ZipFile) => (error ? reject(error) : resolve(zip));
    if (Buffer.isBuffer(source)) yauzl().fromBuffer(source, options, done);
    else yauzl().open(source.path, options, done);
  });
}

/** Every entry of the central directory, or the first yauzl error (a bad path among them). */
function listEntries(zip: ZipFile, maxEntries: number): Promise<Entry[]> {
  if (zip.entryCount > maxEntries) {
    zip.close();
    return Promise.reject(
      new ZipRefusedError(
        'limit',
        `the archive has ${zip.entryCount} entries; at most ${maxEntries} are allowed`,
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

function checkEntry(entry: Entry, limits: ZipLimits): void {
  const name = entry.fileName;
  // The high 16 bits hold the Unix mode when the archive was made on Unix; a link's target is its content.
  if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) {
    throw new ZipRefusedError('unsafe', `"${name}" is a symbolic link; archives with links are refused`);
  }
  if (entry.isEncrypted()) {
    throw new ZipRefusedError(
      'unsafe',
      `"${name}" is encrypted; archives with encrypted entries are refused`,
    );
  }
  if (entry.uncompressedSize > limits.maxEntryBytes) {
    throw new ZipRefusedError(
      'limit',
      `"${name}" is ${entry.uncompressedSize} bytes uncompressed; one entry may be at most ${limits.maxEntryBytes}`,
    );
  }
  const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
  if (ratio > limits.maxRatio) {
    throw new ZipRefusedError(
      'limit',
      `"${name}" expands ${Math.round(ratio)} times its compressed size; at most ${limits.maxRatio} is allowed`,
    );
  }
}

function readEntry(zip: ZipFile, entry: Entry, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) return reject(error);
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          stream.destroy(new ZipRefusedError('limit', `"${entry.fileName}" inflates past its declared size`));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', reject);
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

/** The file entries of `source` (folders left out), or a ZipRefusedError saying which rule the archive broke. */
export async function readZip(source: ZipSource, limits: ZipLimits): Promise<ZipEntry[]> {
  let zip: ZipFile;
  try {
    zip = await open(source);
  } catch (error) {
    throw new ZipRefusedError('invalid', `not a readable zip archive (${(error as Error).message})`);
  }
  try {
    let entries: Entry[];
    try {
      entries = await listEntries(zip, limits.maxEntries);
    } catch (error) {
      if (error instanceof ZipRefusedError) throw error;
      // yauzl's own path checks: "absolute path: /etc/x", "invalid relative path: ../x", and broken directories.
      const message = (error as Error).message;
      const unsafe = /absolute path|invalid relative path|invalid characters/.test(message);
      throw new ZipRefusedError(unsafe ? 'unsafe' : 'invalid', `refused: ${message}`);
    }
    let total = 0;
    for (const entry of entries) {
      checkEntry(entry, limits);
      total += entry.uncompressedSize;
      if (total > limits.maxTotalBytes) {
        throw new ZipRefusedError(
          'limit',
          `the archive holds more than ${limits.maxTotalBytes} bytes uncompressed (the allowed total)`,
        );
      }
    }
    const files: ZipEntry[] = [];
    for (const entry of entries) {
      if (entry.fileName.endsWith('/')) continue;
      try {
        files.push({ path: entry.fileName, bytes: await readEntry(zip, entry, entry.uncompressedSize) });
      } catch (error) {
        if (error instanceof ZipRefusedError) throw error;
        throw new ZipRefusedError(
          'invalid',
          `"${entry.fileName}" cannot be read: ${(error as Error).message}`,
        );
      }
    }
    return files;
  } finally {
    zip.close();
  }
}
