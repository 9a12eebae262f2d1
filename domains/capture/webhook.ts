// The bookmark webhook: who may deliver (an HMAC signature over the raw body, or the shared secret as a bearer
// token), and one parser per bookmark service turning its payload into a bookmark to capture (or an event to
// acknowledge without capturing).
import { createHash } from 'node:crypto';
import { type Static, type TSchema, Type } from 'typebox';
import { constantTimeEqual, hmacSha256Hex } from '../../lib/secrets.ts';
import { Check, Errors } from '../../lib/typebox.ts';

export const signatureHeader = 'x-hub-signature-256';

/** Whether `header` is `sha256=<hex>` of HMAC-SHA256(secret, raw body); compared in constant time. */
export function signatureMatches(secret: string, raw: Buffer, header: string | undefined): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  return constantTimeEqual(hmacSha256Hex(secret, raw), match[1].toLowerCase());
}

/**
 * Why a delivery does not prove it knows the secret, or null when it does: `Authorization: Bearer <secret>` (stock
 * Karakeep), compared in constant time, or the HMAC signature header over the body.
 */
export function deliveryProblem(
  secret: string,
  raw: Buffer,
  headers: { authorization?: string; [signatureHeader]?: string },
): string | null {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  const signature = headers[signatureHeader];
  if (bearer) {
    // Digests have one length whatever the token's, so the comparison tells nothing about the secret's length.
    if (constantTimeEqual(digest(bearer[1]), digest(secret))) return null;
    if (!signature) return 'the bearer token does not match WEBHOOK_SECRET';
  }
  if (typeof signature !== 'string' || signature === '') {
    return `missing ${signatureHeader} header (sha256=<hex HMAC of the body>) or Authorization: Bearer <WEBHOOK_SECRET>`;
  }
  return signatureMatches(secret, raw, signature) ? null : `${signatureHeader} does not match the body`;
}

export interface Bookmark {
  url: string;
  title?: string;
  tags?: string[];
  idempotency_key: string;
}

export type WebhookOutcome =
  | { kind: 'capture'; operation: string | null; bookmark: Bookmark }
  | { kind: 'ignore'; operation: string | null; reason: string };

/** A signed payload that does not have the service's shape (400). */
export class WebhookPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookPayloadError';
  }
}

function checked<T extends TSchema>(schema: T, body: unknown, service: string): Static<T> {
  if (Check(schema, body)) return body as Static<T>;
  // TypeBox reports an unknown property twice; the additionalProperties entry is the readable one.
  const first = Errors(schema, body).find((error) => error.keyword !== 'boolean');
  const where = first?.instancePath ? ` at ${first.instancePath}` : '';
  throw new WebhookPayloadError(
    `not a ${service} webhook payload: ${first?.message ?? 'unexpected shape'}${where}`,
  );
}

function digest(raw: Buffer | string): string {
  return createHash('sha256').update(raw).digest('hex');
}

const Tags = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 });

// A stock Karakeep (apps/workers/workers/webhookWorker.ts) posts JSON.stringify({ jobId, bookmarkId, userId, url,
// type, operation }) for created, edited, crawled, ai tagged and deleted bookmarks: `url` is left out for text and
// asset bookmarks, and `url` and `type` for a deleted one (the bookmark is gone when the webhook runs). It sends
// `Authorization: Bearer <token>` when a token is set, signs nothing, and retries a failed delivery a few times.
export const KarakeepPayload = Type.Object({
  jobId: Type.Union([Type.String({ minLength: 1, maxLength: 150 }), Type.Integer()]),
  bookmarkId: Type.String({ minLength: 1, maxLength: 150 }),
  userId: Type.Optional(Type.String()),
  url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  type: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  operation: Type.String({ maxLength: 100 }),
});

export const GenericPayload = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4096 }),
    title: Type.Optional(Type.String({ maxLength: 500 })),
    tags: Type.Optional(Tags),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 150 })),
  },
  { additionalProperties: false },
);

function nonEmpty(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, 500) : undefined;
}

/** The operations whose bookmark is captured; crawled, ai tagged, deleted and any newer ones are acknowledged. */
const karakeepCaptured = new Set(['created', 'edited']);

function karakeep(body: unknown): WebhookOutcome {
  const event = checked(KarakeepPayload, body, 'karakeep');
  const operation = event.operation;
  if (operation === 'deleted') {
    return { kind: 'ignore', operation, reason: 'deletion acknowledged; the captured document is kept' };
  }
  if (!karakeepCaptured.has(operation)) {
    return { kind: 'ignore', operation, reason: `operation "${operation}" is not captured` };
  }
  if (typeof event.url !== 'string' || event.url === '') {
    return {
      kind: 'ignore',
      operation,
      reason: `a ${event.type ?? 'text or asset'} bookmark has no URL to capture`,
    };
  }
  return {
    kind: 'capture',
    operation,
    bookmark: {
      url: event.url,
      // A redelivery carries the same job id (a duplicate); an edit is a new job and captures again. The bookmark
      // id is part of the key because job ids start over when Karakeep's queue does.
      idempotency_key: `karakeep:${event.bookmarkId}:${event.jobId}`,
    },
  };
}

function generic(body: unknown, raw: Buffer): WebhookOutcome {
  const event = checked(GenericPayload, body, 'generic');
  return {
    kind: 'capture',
    operation: null,
    bookmark: {
      url: event.url,
      title: nonEmpty(event.title),
      tags: event.tags,
      idempotency_key: `generic:${event.idempotency_key ?? digest(raw)}`,
    },
  };
}

export type WebhookParser = (body: unknown, raw: Buffer) => WebhookOutcome;

// linkding sends no webhooks: its bookmarks are pulled (linkding.ts).
export const webhookParsers: Readonly<Record<string, WebhookParser>> = { karakeep, generic };

export function parserFor(service: string): WebhookParser | undefined {
  return Object.hasOwn(webhookParsers, service) ? webhookParsers[service] : undefined;
}
