// Token handling shared by the owner token, agent tokens and the webhook signature, and the sealing of secrets at rest.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';

/** Constant-time comparison; a length mismatch returns false instead of throwing. */
export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const left = typeof a === 'string' ? Buffer.from(a) : a;
  const right = typeof b === 'string' ? Buffer.from(b) : b;
  if (left.length !== right.length) return false;
  return timingSafeEqual(left, right);
}

/** A new random bearer token with a recognisable prefix. */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** Tokens carry 256 random bits, so a fast hash is enough to store them safely. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** HMAC-SHA256 of `body` with `secret`, lower-case hex (the webhook signature's form). */
export function hmacSha256Hex(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * A slow digest of the owner token (scrypt, computed once at start): what a browser session keeps to know which
 * owner token it was made with. The owner may choose a token a person can type, so a copy of the database must not
 * make guessing it fast.
 */
export function ownerTokenDigest(token: string): Promise<Buffer> {
  // On libuv's thread pool: the service builds its routes meanwhile.
  return new Promise((resolve, reject) => {
    scrypt(token, 'ops-hub browser sessions: owner token', 32, (error, digest) =>
      error ? reject(error) : resolve(digest),
    );
  });
}

// Secrets the owner enters (integration keys and tokens) are kept in the database encrypted: AES-256-GCM, a random
// 96-bit nonce per value, and the place the value belongs (its kind and field) as associated data, so a value copied
// into another field or another integration fails to decrypt instead of being used there. Stored form:
// `v1:` + base64(nonce | ciphertext | tag).

/** The key's size: 32 bytes, given as base64 or hex. */
export const secretKeyBytes = 32;
const sealedPrefix = 'v1:';
const nonceBytes = 12;
const tagBytes = 16;

/** Where a sealed value belongs; bound to the ciphertext as associated data. */
export interface SecretPlace {
  kind: string;
  field: string;
}

export class SecretUnreadableError extends Error {
  readonly place: SecretPlace;
  constructor(place: SecretPlace) {
    super(`the stored secret ${place.kind}.${place.field} cannot be decrypted with this key`);
    this.name = 'SecretUnreadableError';
    this.place = place;
  }
}

/** 32 bytes from base64 (standard or URL-safe) or hex text; null when the text is neither. */
export function parseSecretKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-f]{64}$/i.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const key = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === secretKeyBytes) return key;
  }
  return null;
}

export function newSecretKey(): Buffer {
  return randomBytes(secretKeyBytes);
}

function associatedData(place: SecretPlace): Buffer {
  return Buffer.from(`ops-hub secret\u0000${place.kind}\u0000${place.field}`, 'utf8');
}

export function sealSecret(key: Buffer, place: SecretPlace, plaintext: string): string {
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: tagBytes });
  cipher.setAAD(associatedData(place));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return sealedPrefix + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

/** The plaintext, or SecretUnreadableError for a wrong key, a value moved from another place, or tampering. */
export function openSecret(key: Buffer, place: SecretPlace, sealed: string): string {
  if (!sealed.startsWith(sealedPrefix)) throw new SecretUnreadableError(place);
  const bytes = Buffer.from(sealed.slice(sealedPrefix.length), 'base64');
  if (bytes.length < nonceBytes + tagBytes) throw new SecretUnreadableError(place);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, nonceBytes), {
      authTagLength: tagBytes,
    });
    decipher.setAAD(associatedData(place));
    decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
    const body = bytes.subarray(nonceBytes, bytes.length - tagBytes);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadableError(place);
  }
}

export interface SecretKey {
  key: Buffer;
  /** Where it came from, for messages: "HUB_SECRET_KEY" or the key file's path. */
  source: string;
  /** The key file was written by this call. */
  created: boolean;
}

/**
 * The key from HUB_SECRET_KEY when set, else the one kept in `file` (base64, one line), made there (mode 0600) when
 * `create` allows it and there is none. Two processes starting at once agree on the first file written.
 */
export async function loadSecretKey(options: {
  fromEnvironment: Buffer | null;
  file: string;
  create: boolean;
}): Promise<SecretKey | null> {
  if (options.fromEnvironment)
    return { key: options.fromEnvironment, source: 'HUB_SECRET_KEY', created: false };
  const read = async () => {
    const text = await readFile(options.file, 'utf8');
    const key = parseSecretKey(text);
    if (!key) throw new Error(`${options.file} does not hold a 32-byte key as base64 or hex`);
    return key;
  };
  try {
    return { key: await read(), source: options.file, created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (!options.create) return null;
  const key = newSecretKey();
  try {
    await writeFile(options.file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return { key, source: options.file, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { key: await read(), source: options.file, created: false };
  }
}

const secretFields = [
  'api_key',
  'apiKey',
  'token',
  'token_secret',
  'webhook_secret',
  'webhookSecret',
  'secret',
  'password',
  'authorization',
  'client_key',
];

/** Log paths the logger censors: request credentials, and secret fields at the top of a logged object or one level in. */
export const secretLogPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  ...secretFields,
  ...secretFields.map((field) => `*.${field}`),
];
