// Schemas shared by every domain: ids, timestamps, pagination and the error body.
import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import { errorCodes } from './errors.ts';

export const Uuid = Type.String({ format: 'uuid' });
/** The same check outside a schema (ids inside stored payloads, multipart fields). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Rows carry Date objects; the serializer writes them as ISO 8601 strings.
export const Timestamp = Type.Unsafe<Date | string>(Type.String({ format: 'date-time' }));
export const NoContent = Type.Null({ description: 'No content' });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const IdParams = Type.Object({ id: Uuid });
export type IdParams = Static<typeof IdParams>;

/** A PATCH body: some of these fields, at least one, and no other. */
export function Patch<Fields extends TProperties>(fields: Fields) {
  return Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1 });
}

export const maxPageSize = 100;

export const PageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: maxPageSize, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
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

/** The error responses a route can give, for its OpenAPI entry. */
export function errors(...codes: number[]): Record<number, typeof ErrorResponse> {
  return Object.fromEntries(codes.map((code) => [code, ErrorResponse]));
}
