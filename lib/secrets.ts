// Token handling shared by the owner token, agent tokens and the webhook signature.
import { createHash, createHmac, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

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
export function ownerTokenDigest(token: string): Buffer {
  return scryptSync(token, 'ops-hub browser sessions: owner token', 32);
}
