// Brand icons from the simple-icons package: thousands of brands as 24×24 SVG paths with their colour, read from
// node_modules, so no CDN is ever asked. The package is loaded on first use (it is large) and indexed by slug.
import { lazy } from '../../lib/lazy.ts';

export interface Brand {
  slug: string;
  title: string;
  /** Six hex digits, no `#`. */
  hex: string;
  path: string;
}

export const brandSlugPattern = /^[a-z0-9_]{1,100}$/;

const loadBrands = lazy(async (): Promise<Map<string, Brand>> => {
  const icons = await import('simple-icons');
  const brands = new Map<string, Brand>();
  for (const icon of Object.values(icons)) {
    if (typeof icon === 'object' && icon !== null && 'slug' in icon && 'path' in icon) {
      brands.set(icon.slug, { slug: icon.slug, title: icon.title, hex: icon.hex, path: icon.path });
    }
  }
  return brands;
});

export async function findBrand(slug: string): Promise<Brand | undefined> {
  return (await loadBrands()).get(slug);
}

export async function allBrands(): Promise<Brand[]> {
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
