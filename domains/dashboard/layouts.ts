// The one write path of a layout: the layout PUT routes and a card another domain adds (an import) both go through
// it. Reads are answered from a per-process cache of each database handle; every write empties it after commit.
import { hubError } from '../../lib/errors.ts';
import type { Db } from '../../plugins/db.ts';
import { boardKeyPrefix } from '../boards/layout-key.ts';
import { maskLayoutHeaders, sealLayoutHeaders } from './custom-headers.ts';
import { defaultLayout, normaliseLayout } from './layout.ts';
import type { CardType, Layout, LayoutInput } from './schema.ts';
import { findLayouts, type LayoutRow, lockLayout, saveLayout } from './store.ts';

/** The bearer owner's key, the default board's: an access-proxy owner without a layout of their own starts from it. */
export const baseKey = '';

export interface Current {
  layout: Layout;
  etag: string;
  /** The layout as JSON text, made once per change: reads send it as is. */
  text?: string;
}

/**
 * The layout an owner sees: their own, else the bearer owner's, else the default; tagged by where it came from. A
 * board other than the default starts empty.
 */
export function current(rows: LayoutRow[], key: string): Current {
  const own = rows.find((row) => row.owner_key === key);
  if (own) return { layout: own.layout, etag: `"o${own.revision}"` };
  if (key.startsWith(boardKeyPrefix)) return { layout: { mode: 'snap', cards: [] }, etag: '"e"' };
  const base = rows.find((row) => row.owner_key === baseKey);
  if (base) return { layout: base.layout, etag: `"b${base.revision}"` };
  return { layout: defaultLayout(), etag: '"d"' };
}

function matches(ifMatch: string, etag: string): boolean {
  return ifMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}

// Keyed by the database handle: each app (and each test's app) has its own, and only this process writes layouts.
const caches = new WeakMap<object, Map<string, Current>>();

/** The layouts this process answers from memory for this database handle. */
export function layoutCache(sql: Db): Map<string, Current> {
  let cache = caches.get(sql);
  if (!cache) {
    cache = new Map();
    caches.set(sql, cache);
  }
  return cache;
}

type Seal = Parameters<typeof sealLayoutHeaders>[2];

/**
 * Replaces a layout inside `tx` (the key locked first); with If-Match, a layout changed since that ETag is 412.
 * The caller empties the cache once the transaction commits.
 */
export async function writeLayout(
  tx: Db,
  key: string,
  body: LayoutInput,
  options: { ifMatch?: string; seal: Seal },
): Promise<LayoutRow> {
  const layout = normaliseLayout(body);
  await lockLayout(tx, key);
  const now = current(await findLayouts(tx, [key, baseKey]), key);
  if (options.ifMatch !== undefined && !matches(options.ifMatch, now.etag)) {
    throw hubError('LAYOUT_CHANGED', `the layout changed since ${options.ifMatch} (now ${now.etag})`);
  }
  return saveLayout(tx, key, await sealLayoutHeaders(layout, now.layout, options.seal));
}

/**
 * Adds a card of this type at the end of the default board's layout, unless it already has one; true when added.
 * Runs inside the caller's transaction; the caller empties the cache (`layoutCache(sql).clear()`) after commit.
 */
export async function addDefaultBoardCard(tx: Db, type: CardType, seal: Seal): Promise<boolean> {
  await lockLayout(tx, baseKey);
  const { layout } = current(await findLayouts(tx, [baseKey]), baseKey);
  if (layout.cards.some((card) => card.type === type)) return false;
  const ids = new Set(layout.cards.map((card) => card.id));
  let id: string = type;
  for (let n = 2; ids.has(id); n++) id = `${type}-${n}`;
  const bottom = Math.max(0, ...layout.cards.map((card) => card.y + card.h));
  // Stored headers go back masked, so the write keeps them as they are.
  const cards = [...maskLayoutHeaders(layout).cards, { id, type, size: 4, x: 0, y: bottom, config: {} }];
  await writeLayout(tx, baseKey, { mode: layout.mode, cards }, { seal });
  return true;
}
