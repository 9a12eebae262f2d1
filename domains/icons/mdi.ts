// Material Design Icons (`mdi:<name>` iconRefs) from the @iconify-json/mdi package, rendered here so no CDN is ever
// asked: the set (about 3 MB of JSON) is read on first use, and @iconify/utils resolves a name (aliases included)
// to its SVG. The icons are drawn in `currentColor`, which means nothing in an <img>: they get ?color= or a grey
// that reads on light and dark themes alike.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { getIconData } from '@iconify/utils';
import { lazy } from '../../lib/lazy.ts';

export const mdiNamePattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** The colour of an mdi icon without ?color= (six hex digits). */
export const mdiDefaultColor = '9ca3af';

const dataFile = createRequire(import.meta.url).resolve('@iconify-json/mdi/icons.json');

type IconSet = Parameters<typeof getIconData>[0];

const loadSet = lazy(async (): Promise<IconSet> => JSON.parse(await readFile(dataFile, 'utf8')));
// The resolver is loaded with the set, at the first mdi icon asked for.
const utils = lazy(() => import('@iconify/utils'));

/** Every icon's own name in the set (aliases left out, so the picker lists each drawing once). */
export async function mdiNames(): Promise<string[]> {
  return Object.keys((await loadSet()).icons);
}

/** Whether the set has an icon of this name (an alias counts). */
export async function mdiExists(name: string): Promise<boolean> {
  if (!mdiNamePattern.test(name)) return false;
  const { getIconData } = await utils();
  return getIconData(await loadSet(), name) !== null;
}

/** The icon as a standalone SVG in `color` (six hex digits), or undefined when the set has no such icon. */
export async function mdiSvg(name: string, color = mdiDefaultColor): Promise<string | undefined> {
  if (!mdiNamePattern.test(name)) return undefined;
  const { getIconData, iconToHTML, iconToSVG } = await utils();
  const data = getIconData(await loadSet(), name);
  if (!data) return undefined;
  const { attributes, body } = iconToSVG(data, { height: 'auto' });
  return iconToHTML(body.replaceAll('currentColor', `#${color.toLowerCase()}`), attributes);
}
