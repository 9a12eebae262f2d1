// iconRefs (spec section 2): `brand:<slug>` names a simple-icons brand, `set:<set>:<name>` an icon of an uploaded
// set. Devices, services and the assistant's avatar check theirs here before storing them.
import { hubError } from '../../lib/errors.ts';
import type { Db } from '../../plugins/db.ts';
import { brandSlugPattern, findBrand } from './brands.ts';
import { iconExists } from './store.ts';

/** What is wrong with an iconRef, or null when it names an icon that exists (null itself is a valid "no icon"). */
export async function iconRefProblem(sql: Db, ref: string | null): Promise<string | null> {
  if (ref === null) return null;
  const brand = /^brand:(.+)$/.exec(ref);
  if (brand) {
    const slug = brand[1];
    if (!brandSlugPattern.test(slug) || !(await findBrand(slug))) {
      return `no brand icon "${slug}" (slugs as simple-icons spells them, like brand:github)`;
    }
    return null;
  }
  const set = /^set:([a-z0-9-]{1,40}):([a-z0-9-]{1,100})$/.exec(ref);
  if (set) {
    if (!(await iconExists(sql, set[1], set[2]))) return `icon set "${set[1]}" has no icon "${set[2]}"`;
    return null;
  }
  return `"${ref}" is not an iconRef: use brand:<slug> or set:<set>:<name>`;
}

/** Throws 400 ICON_REF_INVALID naming `field` when the iconRef names no icon. */
export async function assertIconRef(sql: Db, ref: string | null, field = 'icon'): Promise<void> {
  const problem = await iconRefProblem(sql, ref);
  if (problem) throw hubError('ICON_REF_INVALID', `${field}: ${problem}`);
}
