// The archive of the hub: a zip (yazl writes it as a stream, yauzl reads it) of one COPY part per table of the
// hub's schema, read in one repeatable-read, read-only transaction (so every table shows the same moment), the voice
// clips, and manifest.json last: hub version, last migration, each table's columns and row count, each part's size
// and SHA-256. With a passphrase the whole zip is encrypted (crypto.ts). Nothing is held whole in memory: each part
// streams from the database (or the disk) through its hash into the zip.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as Yauzl from 'yauzl';
import type { Entry, ZipFile as ZipReader } from 'yauzl';
import type * as Yazl from 'yazl';
import { lazyRequire } from '../../lib/lazy.ts';
import { version } from '../../lib/version.ts';
import type { Sql } from '../../plugins/db.ts';
import { decryptArchive, encryptingStream, isEncrypted } from './crypto.ts';
import type { Manifest, ManifestFile, ManifestPart, ManifestTable } from './schema.ts';
import { copyOut, lastMigration, schemaSequences, schemaTables } from './store.ts';

// Loaded at the first backup or restore, not at start.
const yauzl = lazyRequire<typeof Yauzl>('yauzl');
const yazl = lazyRequire<typeof Yazl>('yazl');

export const manifestName = 'manifest.json';

/** An archive refused before anything was restored; the message names the part at fault. */
export class ArchiveRefusedError extends Error {}

/** A pass-through that measures what crosses it: bytes, SHA-256, and lines (COPY text has one row a line). */
function measuring(): { stream: Transform; result: () => { bytes: number; sha256: string; lines: number } } {
  const hash = createHash('sha256');
  let bytes = 0;
  let lines = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ bytes, sha256: hash.digest('hex'), lines }) };
}

export interface WriteOptions {
  /** The archive's final path; it is written beside it under a temporary name, then renamed (mode 0600). */
  file: string;
  passphrase: string | null;
  /** The voice clips folder (VOICE_CLIPS_DIR). */
  clipsDir: string;
  /** Called when a part has been read whole (tests write meanwhile to check the archive is one moment). */
  afterPart?: (part: string) => Promise<void>;
}

/** Streams one part into the zip and answers its measures once the zip has taken all of it. */
async function addPart(
  zip: Yazl.ZipFile,
  name: string,
  source: Readable,
): Promise<ManifestPart & { lines: number }> {
  const measure = measuring();
  const through = new PassThrough();
  zip.addReadStream(through, name, { mtime: new Date(0) });
  await pipeline(source, measure.stream, through);
  return { part: name, ...measure.result() };
}

async function clipFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
}

/** Writes the archive; answers its manifest and size. On any failure no file is left behind. */
export async function writeArchive(
  sql: Sql,
  options: WriteOptions,
): Promise<{ manifest: Manifest; size: number }> {
  await mkdir(path.dirname(options.file), { recursive: true, mode: 0o700 });
  const temporary = path.join(
    path.dirname(options.file),
    `.${path.basename(options.file)}.${randomBytes(4).toString('hex')}.partial`,
  );
  const zip = new (yazl().ZipFile)();
  const stages: NodeJS.ReadWriteStream[] = options.passphrase
    ? [await encryptingStream(options.passphrase)]
    : [];
  const written = pipeline([zip.outputStream, ...stages, createWriteStream(temporary, { mode: 0o600 })]);
  // A failure of the writing side surfaces through `written`; until then it must not go unhandled.
  written.catch(() => undefined);
  try {
    const tables: ManifestTable[] = [];
    const { migration, sequences } = await sql.begin(
      'isolation level repeatable read read only',
      async (tx) => {
        // The snapshot is taken by this first query: every table below is read as of this moment.
        const migration = await lastMigration(tx);
        for (const table of await schemaTables(tx)) {
          const part = `tables/${table.name}.copy`;
          const measured = await addPart(zip, part, await copyOut(tx, table));
          tables.push({
            ...table,
            part,
            rows: measured.lines,
            bytes: measured.bytes,
            sha256: measured.sha256,
          });
          await options.afterPart?.(part);
        }
        return { migration, sequences: await schemaSequences(tx) };
      },
    );
    const files: ManifestFile[] = [];
    for (const name of await clipFiles(options.clipsDir)) {
      const part = `files/voice-clips/${name}`;
      const { lines: _lines, ...measured } = await addPart(
        zip,
        part,
        createReadStream(path.join(options.clipsDir, name)),
      );
      files.push({ ...measured, area: 'voice-clips', name });
    }
    const manifest: Manifest = {
      format: 'ops-hub-backup',
      format_version: 1,
      hub_version: version,
      created_at: new Date().toISOString(),
      last_migration: migration,
      tables,
      sequences,
      files,
    };
    zip.addBuffer(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), manifestName, {
      mtime: new Date(0),
    });
    zip.end();
    await written;
    await chmod(temporary, 0o600);
    await rename(temporary, options.file);
    return { manifest, size: (await stat(options.file)).size };
  } catch (error) {
    (zip.outputStream as Readable).destroy();
    await written.catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

/** An archive opened for reading: its manifest, and each part as a stream. */
export interface OpenArchive {
  manifest: Manifest;
  part(name: string): Promise<Readable>;
  close(): Promise<void>;
}

function openZip(file: string): Promise<ZipReader> {
  return new Promise((resolve, reject) =>
    yauzl().open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (error, zip) =>
      error ? reject(error) : resolve(zip),
    ),
  );
}

function entriesOf(zip: ZipReader): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: Entry) => {
      entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', reject);
    zip.readEntry();
  });
}

function entryStream(zip: ZipReader, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) =>
    zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))),
  );
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function checkManifest(value: unknown): Manifest {
  const manifest = value as Partial<Manifest> | null;
  if (
    manifest?.format !== 'ops-hub-backup' ||
    manifest.format_version !== 1 ||
    !Number.isInteger(manifest.last_migration) ||
    !Array.isArray(manifest.tables) ||
    !Array.isArray(manifest.sequences) ||
    !Array.isArray(manifest.files)
  ) {
    throw new ArchiveRefusedError(
      `${manifestName} is not the manifest of a hub backup this version can read`,
    );
  }
  for (const file of manifest.files) {
    if (file.area !== 'voice-clips' || path.basename(file.name) !== file.name || file.name.startsWith('.')) {
      throw new ArchiveRefusedError(
        `${manifestName} names a file that cannot be restored: ${String(file.name)}`,
      );
    }
  }
  return manifest as Manifest;
}

/**
 * Opens an archive (decrypting it first into `workDir` when it is encrypted) and checks every part against the
 * manifest's SHA-256 and size before anything is used: a damaged archive is refused naming the part.
 */
export async function openArchive(
  file: string,
  options: { passphrase: string | null; workDir: string },
): Promise<OpenArchive> {
  let zipFile = file;
  if (await isEncrypted(file)) {
    if (!options.passphrase) {
      throw new ArchiveRefusedError(
        'the archive is encrypted: set BACKUP_PASSPHRASE (or BACKUP_PASSPHRASE_FILE)',
      );
    }
    await mkdir(options.workDir, { recursive: true, mode: 0o700 });
    zipFile = path.join(options.workDir, 'archive.zip');
    try {
      await decryptArchive(file, options.passphrase, zipFile);
    } catch (error) {
      await rm(zipFile, { force: true });
      throw new ArchiveRefusedError((error as Error).message);
    }
  }
  let zip: ZipReader;
  let entries: Map<string, Entry>;
  try {
    zip = await openZip(zipFile);
    entries = await entriesOf(zip);
  } catch (error) {
    throw new ArchiveRefusedError(`the archive is not a readable zip: ${(error as Error).message}`);
  }
  const close = async () => {
    zip.close();
    if (zipFile !== file) await rm(zipFile, { force: true });
  };
  try {
    const manifestEntry = entries.get(manifestName);
    if (!manifestEntry) throw new ArchiveRefusedError(`the archive has no ${manifestName}`);
    let manifest: Manifest;
    try {
      manifest = checkManifest(
        JSON.parse((await readAll(await entryStream(zip, manifestEntry))).toString('utf8')),
      );
    } catch (error) {
      if (error instanceof ArchiveRefusedError) throw error;
      throw new ArchiveRefusedError(`${manifestName} cannot be read: ${(error as Error).message}`);
    }
    for (const expected of [...manifest.tables, ...manifest.files]) {
      const entry = entries.get(expected.part);
      if (!entry) throw new ArchiveRefusedError(`the part ${expected.part} is missing from the archive`);
      const hash = createHash('sha256');
      let bytes = 0;
      try {
        for await (const chunk of await entryStream(zip, entry)) {
          hash.update(chunk as Buffer);
          bytes += (chunk as Buffer).length;
        }
      } catch (error) {
        throw new ArchiveRefusedError(`the part ${expected.part} is damaged: ${(error as Error).message}`);
      }
      if (bytes !== expected.bytes || hash.digest('hex') !== expected.sha256) {
        throw new ArchiveRefusedError(
          `the part ${expected.part} does not match its checksum in ${manifestName}`,
        );
      }
    }
    return {
      manifest,
      part: async (name) => {
        const entry = entries.get(name);
        if (!entry) throw new ArchiveRefusedError(`the part ${name} is missing from the archive`);
        return entryStream(zip, entry);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
