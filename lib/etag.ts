// Strong ETags of versioned rows ("<version>") and the If-Match header read against them (RFC 9110 13.1.1: strong
// comparison, so a weak tag never matches; `*` matches any current version).
import { type TSchema, Type } from 'typebox';

export function versionEtag(version: number): string {
  return `"${version}"`;
}

/** What If-Match asks for: any version (`*`), or one of the listed versions (none listed: nothing can match). */
export type IfMatch = { any: true } | { any: false; versions: number[] };

/** The condition of an If-Match header; undefined when there is none. */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const tags = header.split(',').map((tag) => tag.trim());
  if (tags.includes('*')) return { any: true };
  const versions = tags.flatMap((tag) => {
    const match = /^"(\d{1,10})"$/.exec(tag);
    return match ? [Number(match[1])] : [];
  });
  return { any: false, versions };
}

export function ifMatchAllows(condition: IfMatch, version: number): boolean {
  return condition.any || condition.versions.includes(version);
}

/** The If-Match header a write may carry (sent by clients that must not overwrite a newer version). */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'the ETag the edit was made against: a newer version is 412, never overwritten',
    }),
  ),
});

/**
 * A 412 answer: the error (code VERSION_CHANGED; the catalogue is not repeated here, it is written once with the
 * shared error body) and the entity as it is now, its ETag in the header.
 */
export function conflictResponse(entity: TSchema) {
  return Type.Object(
    {
      statusCode: Type.Integer(),
      code: Type.String(),
      error: Type.String(),
      message: Type.String(),
      current_version: Type.Integer(),
      current: Type.Union([entity, Type.Null()]),
    },
    { additionalProperties: true },
  );
}
