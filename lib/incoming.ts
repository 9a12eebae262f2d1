// Uploaded files as they arrive: streamed to a file of their own under DATA_DIR/incoming (mode 0600), hashed and
// counted on the way, never held whole in memory. The size limit is enforced while the bytes flow: the stream is
// cut at the first byte over it, so a lying client costs at most the limit in disk and nothing in memory. Whoever
// receives a file removes it (or moves it where it is kept); what a crash leaves behind goes at the next start.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { hubError } from './errors.ts';

/** The bytes kept from a file's start, enough to tell its type by content (PDF signature, NUL bytes of binaries). */
export const headBytes = 8192;

export interface ReceivedFile {
  path: string;
  /** The file name the sender gave. */
  name: string;
  /** The media type the sender declared. */
  type: string;
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  /** The first bytes (up to headBytes), for sniffing without reading the file again. */
  head: Buffer;
}

/** The stream went over the size limit (turned into the caller's 413 below). */
class FileTooLargeError extends Error {}

export function incomingDir(dataDir: string): string {
  return path.join(dataDir, 'incoming');
}

/** Hashes, counts and keeps the head of what passes through; fails at the first byte over `maxBytes`. */
class Measure extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  readonly #head: Buffer[] = [];
  #headSize = 0;
  readonly #maxBytes: number;

  constructor(maxBytes: number) {
    super();
    this.#maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.#maxBytes) {
      done(new FileTooLargeError());
      return;
    }
    this.hash.update(chunk);
    if (this.#headSize < headBytes) {
      const part = chunk.subarray(0, headBytes - this.#headSize);
      this.#head.push(Buffer.from(part));
      this.#headSize += part.length;
    }
    done(null, chunk);
  }

  head(): Buffer {
    return Buffer.concat(this.#head);
  }
}

/**
 * Streams `source` into a new file under DATA_DIR/incoming. Over `maxBytes` it is a 413 PAYLOAD_TOO_LARGE naming
 * `limitName` (the setting that decides the limit); a source that reports truncation (a multipart file stream cut
 * by the parser's own limit) counts as over it. On any failure the partial file is removed.
 */
export async function receiveFile(
  source: NodeJS.ReadableStream & { truncated?: boolean },
  options: { dataDir: string; maxBytes: number; limitName: string; name: string; type: string },
): Promise<ReceivedFile> {
  const dir = incomingDir(options.dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, randomUUID());
  const measure = new Measure(options.maxBytes);
  try {
    await pipeline(source, measure, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
    if (source.truncated) throw new FileTooLargeError();
  } catch (error) {
    await rm(file, { force: true });
    if (!(error instanceof FileTooLargeError)) throw error;
    throw hubError(
      'PAYLOAD_TOO_LARGE',
      `${options.name || 'the file'} is larger than ${options.limitName} (${options.maxBytes} bytes)`,
    );
  }
  return {
    path: file,
    name: options.name,
    type: options.type,
    size: measure.size,
    sha256: measure.hash.digest('hex'),
    head: measure.head(),
  };
}

/** One part of a multipart body as @fastify/multipart hands it over: a file stream or a text field. */
type Part =
  | {
      type: 'file';
      fieldname: string;
      filename: string;
      mimetype: string;
      file: NodeJS.ReadableStream & { truncated?: boolean };
    }
  | { type: 'field'; fieldname: string; value: unknown };

export interface FormOptions {
  dataDir: string;
  /** The file's size limit and the setting that decides it (named in the 413). */
  maxBytes: number;
  limitName: string;
  /** The text fields the form takes besides `file`. */
  fields: readonly string[];
  /** Called with each text field, trimmed, as it arrives (a check that throws stops the upload before the file). */
  onField?: (name: string, value: string) => Promise<void> | void;
}

/**
 * The one multipart reader (capture uploads, icon sets, voice): the named text fields and one file in the field
 * `file`, streamed to disk as it arrives (receiveFile). The same mistakes answer the same everywhere: 400
 * BAD_REQUEST for a file under another name, an unknown field or no file; 413 PAYLOAD_TOO_LARGE over the limit.
 * Whatever fails, a file already received is removed; on success the caller owns the file.
 */
export async function readForm(
  parts: AsyncIterable<Part>,
  options: FormOptions,
): Promise<{ fields: Record<string, string>; file: ReceivedFile }> {
  const fields: Record<string, string> = {};
  let file: ReceivedFile | null = null;
  try {
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw hubError('BAD_REQUEST', 'the file field is named "file"');
        await discardFile(file);
        file = await receiveFile(part.file, {
          dataDir: options.dataDir,
          maxBytes: options.maxBytes,
          limitName: options.limitName,
          name: part.filename,
          type: part.mimetype,
        });
      } else if (options.fields.includes(part.fieldname)) {
        const value = String(part.value).trim();
        await options.onField?.(part.fieldname, value);
        fields[part.fieldname] = value;
      } else {
        throw hubError(
          'BAD_REQUEST',
          `unknown field "${part.fieldname}" (${[...options.fields, 'file'].join(', ')})`,
        );
      }
    }
    if (!file) throw hubError('BAD_REQUEST', 'file is required');
    return { fields, file };
  } catch (error) {
    await discardFile(file);
    throw error;
  }
}

/** Removes a received file; one already gone is fine. */
export async function discardFile(file: Pick<ReceivedFile, 'path'> | null | undefined): Promise<void> {
  if (file) await rm(file.path, { force: true });
}

/** How long an upload's file goes unwritten before a process starting beside others takes it for a leftover. */
export const incomingLeftoverMs = 60 * 60 * 1000;

/**
 * Empties DATA_DIR/incoming at start: everything when no upload can be in flight (this process alone on its data
 * directory), else only files unwritten for `olderThanMs` (another process may be receiving the rest). Returns how
 * many files went.
 */
export async function clearIncoming(dataDir: string, olderThanMs = 0): Promise<number> {
  const dir = incomingDir(dataDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const before = Date.now() - olderThanMs;
  const leftovers = await Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name);
      if (olderThanMs > 0 && ((await stat(file).catch(() => null))?.mtimeMs ?? 0) > before) return 0;
      await rm(file, { force: true, recursive: true });
      return 1;
    }),
  );
  return leftovers.reduce<number>((sum, gone) => sum + gone, 0);
}
