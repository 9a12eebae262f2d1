// Verifies the access proxy's JWT (Cf-Access-Jwt-Assertion) as an owner login: RS256 only, keys from the team's
// published key set, audience, issuer, validity window and the owner allow-list all checked. Anything unexpected,
// including the key set being down or hanging, fails closed to "not the owner" so the bearer token stays the way in.
import { createVerifier, TokenError } from 'fast-jwt';
import buildGetJwks from 'get-jwks';
import { undici } from './safe-fetch.ts';

/** The slice of a pino/Fastify logger the verifier writes to; reasons only, never the token. */
export interface AccessLog {
  info(details: object, message: string): void;
  debug(details: object, message: string): void;
}

export interface AccessVerifier {
  /** The owner's email when the token is valid and allowed; null on any failure (fails closed, never throws). */
  verify(token: string, log?: AccessLog): Promise<string | null>;
  /** Drops the key-set connections, aborting a fetch still in flight. */
  close(): Promise<void>;
}

export interface AccessVerifierOptions {
  /** The most one verification may take, key-set fetch included. */
  timeoutMs?: number;
  /** Per-fetch limits on connecting and on waiting for response headers and body bytes. */
  connectTimeoutMs?: number;
  responseTimeoutMs?: number;
  /** How long a fetched key is trusted before the key set is asked again. */
  keyCacheTtlMs?: number;
  /**
   * After the key set is asked for a key id it has not yielded before, how long other such key ids are refused
   * without asking (default 30 s): made-up key ids cannot make the hub fetch the key set on every request.
   */
  unknownKidCooldownMs?: number;
  /** Allowed clock difference with the proxy when checking exp and nbf. */
  clockToleranceMs?: number;
  log?: AccessLog;
}

/** A reason to refuse found before any key is fetched. */
class Refusal extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

interface Decoded {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

type BuiltinDispatcher = NonNullable<RequestInit['dispatcher']>;

const silent: AccessLog = { info: () => undefined, debug: () => undefined };
// A real key id is short; a huge one is junk and would only bloat the key cache.
const maxKidLength = 256;

/** What went wrong, for the log: codes and messages of the error and its causes (none of them carries the token). */
function describe(error: unknown): Record<string, unknown> {
  const details: Record<string, unknown> = {};
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    const prefix = depth === 0 ? '' : `cause${depth}_`;
    if (current instanceof Refusal) details.reason = current.reason;
    if (code !== undefined) details[`${prefix}code`] = code;
    details[`${prefix}message`] = current.message;
    current = (current as { originalError?: unknown }).originalError ?? current.cause;
  }
  return details;
}

/** The access proxy as configured (config.ts's ACCESS_* settings): whose tokens, for which application. */
export interface AccessSettings {
  audience: string;
  issuer: string;
  ownerEmails: string[];
  /** Where the team's signing keys are published. */
  certsUrl: string;
}

export function createAccessVerifier(
  access: AccessSettings,
  options: AccessVerifierOptions = {},
): AccessVerifier {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const responseTimeoutMs = options.responseTimeoutMs ?? 4_000;
  const defaultLog = options.log ?? silent;

  // get-jwks ignores its `timeout` option and calls the built-in fetch, so the limits live in the dispatcher.
  // Node 24's bundled fetch speaks the older handler API; Dispatcher1Wrapper adapts undici 8's agent to it
  // (passing the agent bare makes every fetch fail with "invalid onRequestStart method").
  const agent = new (undici().Agent)({
    connectTimeout: options.connectTimeoutMs ?? 3_000,
    headersTimeout: responseTimeoutMs,
    bodyTimeout: responseTimeoutMs,
  });
  // Only the type declarations of the two undici versions differ here, not the runtime contract.
  const dispatcher = new (undici().Dispatcher1Wrapper)(agent) as unknown as BuiltinDispatcher;

  const certs = new URL(access.certsUrl);
  const domain = `${certs.origin}/`;
  const jwksPath = `${certs.pathname}${certs.search}`;
  const jwks = buildGetJwks({
    ttl: options.keyCacheTtlMs ?? 10 * 60_000,
    max: 20,
    jwksPath,
    fetchOptions: { dispatcher, redirect: 'error', headers: { accept: 'application/json' } },
  });

  // get-jwks caches only the keys it found, so every token naming a made-up kid would fetch the key set again. A
  // kid the set has yielded before is always looked up (get-jwks answers from its cache or refreshes it); any
  // other kid at most once per cooldown. The price: a key published moments after such a lookup (a rotation, or
  // the owner's first login just after a junk token) is refused until the cooldown has passed.
  const cooldownMs = options.unknownKidCooldownMs ?? 30_000;
  const foundKids = new Set<string>();
  let unknownLookupAt = Number.NEGATIVE_INFINITY;

  async function publicKey(kid: string): Promise<string> {
    const known = foundKids.has(kid);
    const previous = unknownLookupAt;
    if (!known) {
      const now = performance.now();
      if (now - unknownLookupAt < cooldownMs) {
        throw new Refusal('unknown_kid', 'the key set was just asked for another unknown key id');
      }
      unknownLookupAt = now;
    }
    const started = unknownLookupAt;
    try {
      const key = await jwks.getPublicKey({ domain, alg: 'RS256', kid });
      foundKids.add(kid);
      // The key was there: nothing to hold the next unknown kid back for.
      if (!known && unknownLookupAt === started) unknownLookupAt = previous;
      return key;
    } catch (error) {
      // Gone from the set (or the set failed): from now on this kid waits for the cooldown like any other.
      foundKids.delete(kid);
      throw error;
    }
  }

  const verifyToken = createVerifier({
    algorithms: ['RS256'],
    allowedAud: access.audience,
    allowedIss: access.issuer,
    requiredClaims: ['exp', 'iss', 'aud', 'email'],
    clockTolerance: options.clockToleranceMs ?? 30_000,
    // Checked before any key is fetched, so junk tokens never make the hub call the key set.
    key: async ({ header, payload }: Decoded) => {
      if (header.alg !== 'RS256')
        throw new Refusal('algorithm', `algorithm ${String(header.alg)} is not RS256`);
      const kid = header.kid;
      if (typeof kid !== 'string' || kid === '' || kid.length > maxKidLength) {
        throw new Refusal('kid', 'the token names no usable key id');
      }
      if (payload.iss !== access.issuer) throw new Refusal('issuer', 'the token comes from another issuer');
      return publicKey(kid);
    },
  });

  async function check(token: string): Promise<string> {
    const payload: Record<string, unknown> = await verifyToken(token);
    const email = typeof payload.email === 'string' ? payload.email.trim().toLowerCase() : '';
    if (!email || !access.ownerEmails.includes(email)) {
      throw new Refusal('email', `${email || 'the token'} is not an owner email`);
    }
    return email;
  }

  function withDeadline(work: Promise<string>): Promise<string> {
    const signal = AbortSignal.timeout(timeoutMs);
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(new Refusal('timeout', `no answer within ${timeoutMs} ms`));
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  return {
    async verify(token, log = defaultLog) {
      try {
        const email = await withDeadline(check(token));
        log.debug({ email }, 'access-proxy login accepted');
        return email;
      } catch (error) {
        const details = describe(error);
        if (error instanceof TokenError && details.reason === undefined) details.reason = error.code;
        log.info(details, 'access-proxy token refused');
        return null;
      }
    },
    async close() {
      await agent.destroy();
    },
  };
}
