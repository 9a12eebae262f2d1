// iconRefs (spec section 2): `brand:<slug>` names a simple-icons brand, `mdi:<name>` a Material Design icon,
// `set:<set>:<name>` an icon of an uploaded set. Every place that stores one (devices, monitored services, the assistant's avatar) checks it here first, so a
// stored ref always named an icon when it was written.
import { hubError } from '../../lib/errors.ts';
import type { Db } from '../../plugins/db.ts';
import { brandSlugPattern, findBrand } from './brands.ts';
import { mdiExists } from './mdi.ts';
import { iconExists } from './store.ts';

/**
 * What is wrong with an iconRef: `missing` when it is well formed but names no icon, `malformed` when it is not an
 * iconRef at all; null when it names an icon that exists (null itself is a valid "no icon").
 */
export async function iconRefProblem(
  sql: Db,
  ref: string | null,
): Promise<{ kind: 'missing' | 'malformed'; message: string } | null> {
  if (ref === null) return null;
  const brand = /^brand:(.+)$/.exec(ref);
  if (brand) {
    const slug = brand[1];
    if (!brandSlugPattern.test(slug) || !(await findBrand(slug))) {
      return {
        kind: 'missing',
        message: `${ref} names no brand icon (slugs as simple-icons spells them, like brand:github)`,
      };
    }
    return null;
  }
  const mdi = /^mdi:(.+)$/.exec(ref);
  if (mdi) {
    if (!(await mdiExists(mdi[1]))) {
      return {
        kind: 'missing',
        message: `${ref} names no Material Design icon (names as materialdesignicons.com spells them, like mdi:home)`,
      };
    }
    return null;
  }
  const set = /^set:([a-z0-9-]{1,40}):([a-z0-9-]{1,100})$/.exec(ref);
  if (set) {
    if (!(await iconExists(sql, set[1], set[2]))) {
      return {
        kind: 'missing',
        message: `${ref} names no icon: icon set "${set[1]}" has no icon "${set[2]}"`,
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
