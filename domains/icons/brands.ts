// Brand icons from the simple-icons package: thousands of brands as 24×24 SVG paths with their colour, read from
// node_modules, so no CDN is ever asked. The package's JavaScript module is never loaded (its source and objects cost
// about 40 MB for as long as the process lives): the brand list (slug, title, colour) comes from its data file on
// first use, and a brand's path from its own SVG file when it is asked for.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { lazy } from '../../lib/lazy.ts';

export interface BrandInfo {
  slug: string;
  title: string;
  /** Six hex digits, no `#`. */
  hex: string;
}

export interface Brand extends BrandInfo {
  path: string;
}

export const brandSlugPattern = /^[a-z0-9_]{1,100}$/;

const dataFile = createRequire(import.meta.url).resolve('simple-icons/icons.json');
const iconsDir = path.join(path.dirname(dataFile), '..', 'icons');

const loadBrands = lazy(async (): Promise<Map<string, BrandInfo>> => {
  const data = JSON.parse(await readFile(dataFile, 'utf8')) as BrandInfo[];
  const brands = new Map<string, BrandInfo>();
  for (const { slug, title, hex } of data) brands.set(slug, { slug, title, hex });
  return brands;
});

/** The paths of the brands asked for lately (a dashboard shows the same few on every load): no file read each time. */
const recentPaths = new Map<string, string>();
const recentPathsLimit = 512;

async function brandPath(slug: string): Promise<string | undefined> {
  const known = recentPaths.get(slug);
  if (known !== undefined) return known;
  // The slug is one of the package's own (checked by the caller), so it names a file of its icons folder.
  const svg = await readFile(path.join(iconsDir, `${slug}.svg`), 'utf8');
  const d = /<path d="([^"]+)"/.exec(svg)?.[1];
  if (d === undefined) return undefined;
  if (recentPaths.size >= recentPathsLimit) recentPaths.delete(recentPaths.keys().next().value as string);
  recentPaths.set(slug, d);
  return d;
}

export async function findBrand(slug: string): Promise<Brand | undefined> {
  const brand = (await loadBrands()).get(slug);
  if (!brand) return undefined;
  const d = await brandPath(brand.slug);
  return d ? { ...brand, path: d } : undefined;
}

export async function allBrands(): Promise<BrandInfo[]> {
  return [...(await loadBrands()).values()];
}

/** The brand as a standalone SVG in its own colour or `color` (six hex digits). */
export function brandSvg(brand: Brand, color?: string): string {
  const fill = `#${(color ?? brand.hex).toLowerCase()}`;
  const title = brand.title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" role="img"><title>${title}</title>` +
    `<path fill="${fill}" d="${brand.path}"/></svg>`
  );
}
