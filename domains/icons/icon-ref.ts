// iconRefs: `brand:<slug>` names a simple-icons brand, `mdi:<name>` a Material Design icon, `set:<set>:<name>` an
// icon of an uploaded set. The one grammar of them: the schema routes validate with, the URL the icon routes serve one
// at, and the check every place that stores one (devices, monitored services, apps, the assistant's avatar) runs
// first, so a stored ref always named an icon when it was written.
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import type { Db } from '../../plugins/db.ts';
import { brandSlugPattern, findBrand } from './brands.ts';
import { mdiExists } from './mdi.ts';
import { iconExists } from './store.ts';

const part = '[a-z0-9][a-z0-9._-]{0,99}';
export const iconRefPattern = `^(?:set:${part}:${part}|brand:${part}|mdi:${part})$`;

export const IconRef = Type.String({
  pattern: iconRefPattern,
  maxLength: 220,
  description: 'set:<set>:<name>, brand:<slug> or mdi:<name>',
});
export const NullableIconRef = Type.Union([IconRef, Type.Null()]);

/** An iconRef taken apart: a brand's slug, an mdi name, or a set and an icon's name; null when it is none of them. */
export function parseIconRef(
  ref: string,
):
  | { kind: 'brand'; slug: string }
  | { kind: 'mdi'; name: string }
  | { kind: 'set'; set: string; name: string }
  | null {
  const brand = /^brand:(.+)$/.exec(ref);
  if (brand) return { kind: 'brand', slug: brand[1] };
  const mdi = /^mdi:(.+)$/.exec(ref);
  if (mdi) return { kind: 'mdi', name: mdi[1] };
  const set = /^set:([^:]+):(.+)$/.exec(ref);
  return set ? { kind: 'set', set: set[1], name: set[2] } : null;
}

/**
 * The URL of the icon a reference names: brand icons as PNG, mdi icons as SVG, set icons by name with their own
 * extension.
 */
export function iconUrl(ref: string | null): string | null {
  const parsed = ref ? parseIconRef(ref) : null;
  if (!parsed) return null;
  if (parsed.kind === 'brand') return `/api/icons/${encodeURIComponent(parsed.slug)}.png`;
  if (parsed.kind === 'mdi') return `/api/icons/mdi/${encodeURIComponent(parsed.name)}.svg`;
  const name = /\.(svg|png)$/i.test(parsed.name) ? parsed.name : `${parsed.name}.svg`;
  return `/api/icon-sets/${encodeURIComponent(parsed.set)}/${encodeURIComponent(name)}`;
}

const setPart = /^[a-z0-9-]{1,40}$/;
const iconPart = /^[a-z0-9-]{1,100}$/;

/**
 * What is wrong with an iconRef: `missing` when it is well formed but names no icon, `malformed` when it is not an
 * iconRef at all; null when it names an icon that exists (null itself is a valid "no icon").
 */
export async function iconRefProblem(
  sql: Db,
  ref: string | null,
): Promise<{ kind: 'missing' | 'malformed'; message: string } | null> {
  if (ref === null) return null;
  const parsed = parseIconRef(ref);
  if (parsed?.kind === 'brand') {
    const slug = parsed.slug;
    if (!brandSlugPattern.test(slug) || !(await findBrand(slug))) {
      return {
        kind: 'missing',
        message: `${ref} names no brand icon (slugs as simple-icons spells them, like brand:github)`,
      };
    }
    return null;
  }
  if (parsed?.kind === 'mdi') {
    if (!(await mdiExists(parsed.name))) {
      return {
        kind: 'missing',
        message: `${ref} names no Material Design icon (names as materialdesignicons.com spells them, like mdi:home)`,
      };
    }
    return null;
  }
  if (parsed?.kind === 'set' && setPart.test(parsed.set) && iconPart.test(parsed.name)) {
    if (!(await iconExists(sql, parsed.set, parsed.name))) {
      return {
        kind: 'missing',
        message: `${ref} names no icon: icon set "${parsed.set}" has no icon "${parsed.name}"`,
      };
    }
    return null;
  }
  return {
    kind: 'malformed',
    message: `"${ref}" is not an iconRef: use brand:<slug>, mdi:<name> or set:<set>:<name>`,
  };
}

/**
 * Throws unless the iconRef names an icon: 400 ICON_NOT_FOUND naming the ref (and `field`) when it names none, 400
 * ICON_REF_INVALID when it is no iconRef at all.
 */
export async function assertIconRef(sql: Db, ref: string | null | undefined, field = 'icon'): Promise<void> {
  const problem = await iconRefProblem(sql, ref ?? null);
  if (!problem) return;
  throw hubError(
    problem.kind === 'missing' ? 'ICON_NOT_FOUND' : 'ICON_REF_INVALID',
    `${field}: ${problem.message}`,
  );
}
