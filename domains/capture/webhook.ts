// The bookmark webhook: the signature over the raw body, and one parser per bookmark service turning its payload
// into a bookmark to capture (or an event to acknowledge without capturing).
import { createHash } from 'node:crypto';
import { type Static, type TSchema, Type } from 'typebox';
import { Check, Errors } from 'typebox/value';
import { constantTimeEqual, hmacSha256Hex } from '../../lib/secrets.ts';

export const signatureHeader = 'x-hub-signature-256';

/** Whether `header` is `sha256=<hex>` of HMAC-SHA256(secret, raw body); compared in constant time. */
export function signatureMatches(secret: string, raw: Buffer, header: string | undefined): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  return constantTimeEqual(hmacSha256Hex(secret, raw), match[1].toLowerCase());
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

function bodyDigest(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex');
}

const Tags = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 });

// Karakeep posts { jobId, bookmarkId, userId, url, type, operation } for created, edited, crawled, ai tagged and
// deleted bookmarks; the same event redelivered carries the same jobId.
export const KarakeepPayload = Type.Object({
  jobId: Type.Union([Type.String({ minLength: 1, maxLength: 150 }), Type.Integer()]),
  bookmarkId: Type.String({ minLength: 1 }),
  userId: Type.Optional(Type.String()),
  url: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  type: Type.String(),
  operation: Type.String(),
});

// linkding (webhook extension) posts { event, bookmark } for new and deleted bookmarks and
// { event, old_bookmark, new_bookmark } for edits.
const LinkdingBookmark = Type.Object({
  url: Type.String({ minLength: 1 }),
  id: Type.Optional(Type.Integer()),
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  website_title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  tags: Type.Optional(Tags),
});
export const LinkdingPayload = Type.Object({
  event: Type.String(),
  bookmark: Type.Optional(LinkdingBookmark),
  new_bookmark: Type.Optional(LinkdingBookmark),
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

function karakeep(body: unknown): WebhookOutcome {
  const event = checked(KarakeepPayload, body, 'karakeep');
  const operation = event.operation;
  if (operation === 'deleted') {
    return { kind: 'ignore', operation, reason: 'deletion acknowledged; the captured document is kept' };
  }
  if (operation !== 'created' && operation !== 'edited') {
    return { kind: 'ignore', operation, reason: `operation "${operation}" is not captured` };
  }
  if (typeof event.url !== 'string' || event.url === '') {
    return { kind: 'ignore', operation, reason: `a ${event.type} bookmark has no URL to capture` };
  }
  return {
    kind: 'capture',
    operation,
    bookmark: { url: event.url, idempotency_key: `karakeep:${event.jobId}` },
  };
}

function linkding(body: unknown, raw: Buffer): WebhookOutcome {
  const event = checked(LinkdingPayload, body, 'linkding');
  const operation = event.event;
  if (operation === 'deleted_bookmark') {
    return { kind: 'ignore', operation, reason: 'deletion acknowledged; the captured document is kept' };
  }
  const bookmark =
    operation === 'new_bookmark'
      ? event.bookmark
      : operation === 'updated_bookmark'
        ? event.new_bookmark
        : null;
  if (bookmark === null) return { kind: 'ignore', operation, reason: `event "${operation}" is not captured` };
  if (!bookmark) {
    throw new WebhookPayloadError(
      `not a linkding webhook payload: ${operation} without ${operation === 'new_bookmark' ? 'bookmark' : 'new_bookmark'}`,
    );
  }
  return {
    kind: 'capture',
    operation,
    bookmark: {
      url: bookmark.url,
      title: nonEmpty(bookmark.title) ?? nonEmpty(bookmark.website_title),
      tags: bookmark.tags,
      // linkding sends no delivery id: the same body delivered twice is the same event.
      idempotency_key: `linkding:${bodyDigest(raw)}`,
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
      idempotency_key: `generic:${event.idempotency_key ?? bodyDigest(raw)}`,
    },
  };
}

export type WebhookParser = (body: unknown, raw: Buffer) => WebhookOutcome;

export const webhookParsers: Readonly<Record<string, WebhookParser>> = { karakeep, linkding, generic };

export function parserFor(service: string): WebhookParser | undefined {
  return Object.hasOwn(webhookParsers, service) ? webhookParsers[service] : undefined;
}
