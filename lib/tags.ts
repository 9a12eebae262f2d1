// Tags on pages, references, captured documents and apps: trimmed, unique regardless of case (the first spelling
// is kept), at most 32 of at most 64 characters. What the owner or an agent writes is refused with TAGS_INVALID when
// it breaks a rule; what arrives from elsewhere (a bookmark service's webhook, an import) is made to fit instead.
import type { PendingQuery, Row } from 'postgres';
import { Type } from 'typebox';
import type { Db } from './db.ts';
import { hubError } from './errors.ts';

export const maxTags = 32;
export const maxTagLength = 64;

/** The schema of a write's `tags`: loose, so the rules are checked by `normaliseTags` with their own code. */
export const TagsInput = Type.Array(Type.String({ maxLength: 1000 }), {
  maxItems: 1000,
  description: `trimmed, unique regardless of case; at most ${maxTags} tags of 1 to ${maxTagLength} characters`,
});

export const Tags = Type.Array(Type.String());

function unique(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((tag) => {
    const key = tag.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The tags as stored; TAGS_INVALID names the first rule broken. */
export function normaliseTags(tags: readonly string[]): string[] {
  const trimmed = tags.map((tag) => tag.trim());
  const empty = trimmed.findIndex((tag) => tag.length === 0);
  if (empty >= 0) throw hubError('TAGS_INVALID', `tag ${empty + 1} is empty`);
  const long = trimmed.find((tag) => tag.length > maxTagLength);
  if (long !== undefined)
    throw hubError('TAGS_INVALID', `a tag has at most ${maxTagLength} characters: "${long.slice(0, 20)}…"`);
  const kept = unique(trimmed);
  if (kept.length > maxTags) throw hubError('TAGS_INVALID', `at most ${maxTags} tags (${kept.length} given)`);
  return kept;
}

/** Tags from elsewhere made to fit: blanks dropped, long ones cut, duplicates dropped, the first 32 kept. */
export function fittedTags(tags: readonly unknown[]): string[] {
  const strings = tags
    .filter((tag): tag is string => typeof tag === 'string')
    .map((tag) => tag.trim().slice(0, maxTagLength).trim())
    .filter((tag) => tag.length > 0);
  return unique(strings).slice(0, maxTags);
}

/** A list's `?tag=`: the rows carrying this tag, whatever its case. */
export const TagFilter = Type.String({
  minLength: 1,
  maxLength: maxTagLength,
  description: 'only rows with this tag (any case)',
});

/**
 * The filter fragment of a list's `?tag=` for a `text[]` column, matching regardless of case: each store puts it in
 * its own where clause, as it gives list-page its fragments.
 */
export function hasTag(sql: Db, column: PendingQuery<Row[]>, tag: string): PendingQuery<Row[]> {
  return sql`exists (select 1 from unnest(${column}) as tag where lower(tag) = lower(${tag.trim()}))`;
}
