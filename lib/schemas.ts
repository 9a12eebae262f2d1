// Schemas shared by every domain: ids, timestamps, pagination and the error body.
import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import { Format } from 'typebox/format';
import { isDate, isDateTime, isWebUrl } from './input.ts';

// TypeBox's own checks (the tool protocol, stored payloads) hold dates to what Fastify's validator does (app.ts):
// no leap second, no RFC 9557 suffix, nothing a Date cannot represent.
Format.Set('date-time', isDateTime);
Format.Set('date', isDate);
Format.Set('web-url', isWebUrl);

import { errorCodes } from './errors.ts';

export const Uuid = Type.String({ format: 'uuid' });
/** The same check outside a schema (ids inside stored payloads, multipart fields). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Rows carry Date objects; the serializer writes them as ISO 8601 strings.
export const Timestamp = Type.Unsafe<Date | string>(Type.String({ format: 'date-time' }));
export const NoContent = Type.Null({ description: 'No content' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
/** A point in time a client sends: a date-time, or a plain date (`2026-12-05`, midnight UTC). */
export const DateInput = Type.Union([Type.String({ format: 'date-time' }), Type.String({ format: 'date' })], {
  description: 'an RFC 3339 date-time, or a plain date YYYY-MM-DD (midnight UTC)',
});
/** A link that is stored and shown: http or https only (lib/input.ts isWebUrl). */
export function WebUrl(maxLength: number) {
  return Type.String({ format: 'web-url', maxLength, description: 'an absolute http or https URL' });
}

export const NullableDateInput = Type.Union([DateInput, Type.Null()]);

/** The space a create goes to; without one, a scoped agent's own space, else the default space ("Inbox"). */
export const CreateSpaceId = Type.Optional(
  Type.String({
    format: 'uuid',
    description:
      'The space to create in. Default: for an agent scoped to one space, its space; otherwise the "Inbox" space ' +
      '(made on first use), where captures without a space go too.',
  }),
);

export const IdParams = Type.Object({ id: Uuid });
export type IdParams = Static<typeof IdParams>;

/** A PATCH body: some of these fields, at least one, and no other. */
export function Patch<Fields extends TProperties>(fields: Fields) {
  return Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1 });
}

export const maxPageSize = 100;

/**
 * How many items of a list to skip. PostgreSQL's offset is a 64-bit integer; beyond what a JavaScript number holds
 * exactly is refused up front. Every list route takes one (test/lists.test.ts holds them to it).
 */
export const Offset = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 });

export const PageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: maxPageSize, default: 50 }),
  offset: Offset,
});

/** A page of items: `{ items, total, limit, offset }`. */
export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer({ minimum: 0 }),
    limit: Type.Integer(),
    offset: Type.Integer(),
  });
}

export const ErrorResponse = Type.Object(
  {
    statusCode: Type.Integer(),
    code: Type.Enum(errorCodes, {
      type: 'string',
      description: 'a stable code from the error catalogue; the README lists the main ones',
    }),
    error: Type.String(),
    message: Type.String(),
  },
  { $id: 'ErrorResponse', additionalProperties: true },
);

/**
 * The answer to a write diverted for the owner's approval: 202 from REST, the result of a write tool. Shared like the
 * error body (every entity write can answer it), so the document names it once.
 */
export const PendingReceipt = Type.Object(
  { pending_change_id: Uuid, status: Type.Literal('pending') },
  { $id: 'PendingReceipt', description: "a suggest-tier agent's write, waiting for the owner's approval" },
);
export type PendingReceipt = Static<typeof PendingReceipt>;

/** The error responses a route can give, for its OpenAPI entry. */
export function errors(...codes: number[]): Record<number, typeof ErrorResponse> {
  return Object.fromEntries(codes.map((code) => [code, ErrorResponse]));
}

/** A dashboard card's data: open-ended, with `configured: false` when its upstream is not set up (or its JSON text, sent as is). */
export const CardBody = Type.Unsafe<Record<string, unknown> | string>(
  Type.Object(
    { configured: Type.Optional(Type.Boolean()), stale: Type.Optional(Type.Boolean()) },
    { additionalProperties: true },
  ),
);
