// Finding an icon by name across the sources, in the order README's "Icons" gives: an uploaded set's icon (the named set,
// or the first set holding that name, by set name), then a simple-icons brand. Set icons are looked up in an index
// held in memory (names and hashes, no bytes), read once and dropped after every write this process makes, so
// serving a cached icon asks the database nothing.
import type { Db } from '../../plugins/db.ts';
import { allBrands, type Brand, findBrand } from './brands.ts';
import { mdiNames } from './mdi.ts';
import { allIconLocations, type IconLocation } from './store.ts';

export type IconSource = { kind: 'set'; icon: IconLocation } | { kind: 'brand'; brand: Brand };

export class SetIconIndex {
  readonly #sql: Db;
  #byName: Promise<Map<string, IconLocation[]>> | null = null;

  constructor(sql: Db) {
    this.#sql = sql;
  }

  /** Call after any write to icon sets: the next lookup reads the index again. */
  invalidate(): void {
    this.#byName = null;
  }

  #load(): Promise<Map<string, IconLocation[]>> {
    this.#byName ??= allIconLocations(this.#sql).then((rows) => {
      const byName = new Map<string, IconLocation[]>();
      for (const row of rows) {
        const list = byName.get(row.name) ?? [];
        list.push(row);
        byName.set(row.name, list);
      }
      return byName;
    });
    const loading = this.#byName;
    loading.catch(() => {
      if (this.#byName === loading) this.#byName = null;
    });
    return loading;
  }

  async find(name: string, set?: string, type?: 'svg' | 'png'): Promise<IconLocation | undefined> {
    const list = (await this.#load()).get(name) ?? [];
    return list.find(
      (icon) => (set === undefined || icon.set_name === set) && (type === undefined || icon.type === type),
    );
  }

  async all(): Promise<IconLocation[]> {
    return [...(await this.#load()).values()].flat();
  }
}

/** Where an icon of this name comes from; `type` limits set icons to one type (the vector route wants svg). */
export async function resolveIcon(
  index: SetIconIndex,
  slug: string,
  options: { set?: string; type?: 'svg' | 'png' },
): Promise<IconSource | undefined> {
  const icon = await index.find(slug, options.set, options.type);
  if (icon) return { kind: 'set', icon };
  const brand = await findBrand(slug);
  return brand ? { kind: 'brand', brand } : undefined;
}

export interface SearchHit {
  ref: string;
  source: 'brand' | 'set' | 'mdi';
  name: string;
  title: string;
  set: string | null;
  type: 'svg' | 'png';
  hex: string | null;
  url: string;
}

/** Set, brand and Material Design icons whose name or title holds `q`: exact matches first, then prefixes, then the rest. */
export async function searchIcons(index: SetIconIndex, q: string): Promise<SearchHit[]> {
  const needle = q.trim().toLowerCase();
  const hits: { hit: SearchHit; rank: number }[] = [];
  const rank = (...texts: string[]) => {
    if (needle === '') return 2;
    const lowered = texts.map((text) => text.toLowerCase());
    if (lowered.some((text) => text === needle)) return 0;
    if (lowered.some((text) => text.startsWith(needle))) return 1;
    if (lowered.some((text) => text.includes(needle))) return 2;
    return -1;
  };
  for (const icon of await index.all()) {
    const r = rank(icon.name);
    if (r < 0) continue;
    hits.push({
      rank: r,
      hit: {
        ref: `set:${icon.set_name}:${icon.name}`,
        source: 'set',
        name: icon.name,
        title: icon.name,
        set: icon.set_name,
        type: icon.type,
        hex: null,
        url: `/api/icon-sets/${icon.set_name}/${icon.name}.${icon.type}`,
      },
    });
  }
  for (const brand of await allBrands()) {
    const r = rank(brand.slug, brand.title);
    if (r < 0) continue;
    hits.push({
      rank: r,
      hit: {
        ref: `brand:${brand.slug}`,
        source: 'brand',
        name: brand.slug,
        title: brand.title,
        set: null,
        type: 'svg',
        hex: brand.hex,
        url: `/api/icons/${brand.slug}.svg`,
      },
    });
  }
  for (const name of await mdiNames()) {
    const r = rank(name);
    if (r < 0) continue;
    hits.push({
      rank: r,
      hit: {
        ref: `mdi:${name}`,
        source: 'mdi',
        name,
        title: name,
        set: null,
        type: 'svg',
        hex: null,
        url: `/api/icons/mdi/${name}.svg`,
      },
    });
  }
  hits.sort(
    (a, b) => a.rank - b.rank || a.hit.name.localeCompare(b.hit.name) || a.hit.ref.localeCompare(b.hit.ref),
  );
  return hits.map(({ hit }) => hit);
}
