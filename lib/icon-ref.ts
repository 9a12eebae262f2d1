// Icon references (spec: iconRef): `set:<set>:<name>`, `brand:<slug>`, `mdi:<name>`, or null. Devices and monitored services carry
// one; `iconUrl` says where the icon routes serve it. Until the icon catalogue can be asked, any well-formed
// reference is accepted.
import { Type } from 'typebox';

const part = '[a-z0-9][a-z0-9._-]{0,99}';
export const iconRefPattern = `^(?:set:${part}:${part}|brand:${part}|mdi:${part})$`;

export const IconRef = Type.String({
  pattern: iconRefPattern,
  maxLength: 220,
  description: 'set:<set>:<name>, brand:<slug> or mdi:<name>',
});
export const NullableIconRef = Type.Union([IconRef, Type.Null()]);

/** The URL of the icon a reference names: brand icons as PNG, set icons by name with their own extension. */
export function iconUrl(ref: string | null): string | null {
  if (!ref) return null;
  const brand = /^brand:(.+)$/.exec(ref);
  if (brand) return `/api/icons/${encodeURIComponent(brand[1])}.png`;
  const mdi = /^mdi:(.+)$/.exec(ref);
  if (mdi) return `/api/icons/mdi/${encodeURIComponent(mdi[1])}.svg`;
  const set = /^set:([^:]+):(.+)$/.exec(ref);
  if (!set) return null;
  const name = /\.(svg|png)$/i.test(set[2]) ? set[2] : `${set[2]}.svg`;
  return `/api/icon-sets/${encodeURIComponent(set[1])}/${encodeURIComponent(name)}`;
}
