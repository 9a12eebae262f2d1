// Whole-archive encryption with a passphrase: scrypt derives a key from it and a random salt; AES-256-GCM encrypts
// the archive under a random nonce, the header (magic, scrypt parameters, salt, nonce) authenticated with it, and the
// tag closes the file. Layout: "OPSHUBBK" | version 1 | log2(N) | r | p | salt (16) | nonce (12) | data | tag (16).
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const magic = Buffer.from('OPSHUBBK');
const headerBytes = magic.length + 4 + 16 + 12;
const tagBytes = 16;
/** N = 2^15, r = 8, p = 1: about 32 MiB and a tenth of a second per derivation. */
const defaultParams = { log2N: 15, r: 8, p: 1 };

export class ArchiveDecryptError extends Error {}

function deriveKey(passphrase: string, salt: Buffer, params: typeof defaultParams): Promise<Buffer> {
  const N = 2 ** params.log2N;
  return new Promise((resolve, reject) => {
    scrypt(passphrase, salt, 32, { N, r: params.r, p: params.p, maxmem: 256 * N * params.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** A stream that encrypts what passes through it into the layout above. */
export async function encryptingStream(passphrase: string): Promise<Transform> {
  const salt = randomBytes(16);
  const nonce = randomBytes(12);
  const key = await deriveKey(passphrase, salt, defaultParams);
  const header = Buffer.concat([
    magic,
    Buffer.from([1, defaultParams.log2N, defaultParams.r, defaultParams.p]),
    salt,
    nonce,
  ]);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(header);
  let started = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (!started) {
        started = true;
        this.push(header);
      }
      done(null, cipher.update(chunk));
    },
    flush(done) {
      if (!started) this.push(header);
      this.push(cipher.final());
      done(null, cipher.getAuthTag());
    },
  });
}

/** Whether the file begins as an encrypted archive does. */
export async function isEncrypted(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const start = Buffer.alloc(magic.length);
    const { bytesRead } = await handle.read(start, 0, magic.length, 0);
    return bytesRead === magic.length && start.equals(magic);
  } finally {
    await handle.close();
  }
}

/**
 * Decrypts `file` into `out` (mode 0600). The tag is checked at the end: a wrong passphrase or a changed byte anywhere
 * throws ArchiveDecryptError, and the caller discards what was written.
 */
export async function decryptArchive(file: string, passphrase: string, out: string): Promise<void> {
  const size = (await stat(file)).size;
  if (size < headerBytes + tagBytes) throw new ArchiveDecryptError('the encrypted archive is truncated');
  const handle = await open(file, 'r');
  const header = Buffer.alloc(headerBytes);
  const tag = Buffer.alloc(tagBytes);
  try {
    await handle.read(header, 0, headerBytes, 0);
    await handle.read(tag, 0, tagBytes, size - tagBytes);
  } finally {
    await handle.close();
  }
  const [version, log2N, r, p] = header.subarray(magic.length, magic.length + 4);
  if (version !== 1 || log2N < 10 || log2N > 22 || r < 1 || r > 32 || p < 1 || p > 16) {
    throw new ArchiveDecryptError('the encrypted archive has a header this hub does not know');
  }
  const salt = header.subarray(magic.length + 4, magic.length + 20);
  const nonce = header.subarray(magic.length + 20);
  const key = await deriveKey(passphrase, salt, { log2N, r, p });
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(header);
  decipher.setAuthTag(tag);
  try {
    await pipeline(
      createReadStream(file, { start: headerBytes, end: size - tagBytes - 1 }),
      decipher,
      createWriteStream(out, { mode: 0o600 }),
    );
  } catch (error) {
    if ((error as Error).message.includes('authenticate')) {
      throw new ArchiveDecryptError('the passphrase is wrong or the encrypted archive is damaged');
    }
    throw error;
  }
}
