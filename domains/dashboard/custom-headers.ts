// A custom card's request headers may hold tokens, so they are kept as the integrations' secrets are: sealed under
// the hub's key (AES-256-GCM), each bound to its card and header name, and write-only. A layout is answered with
// `{ set: true }` in place of each value; a layout saved with a header as `{ set: true }` (or without it) keeps the
// stored value, a string replaces it and null removes it. The card's read opens them only to call its upstream.
import type { SecretPlace } from '../../lib/secrets.ts';
import type { SealedStore } from '../integrations/keyring.ts';
import type { Layout } from './schema.ts';
import { layoutsWithSealedHeaders, replaceLayoutHeaders } from './store.ts';

/** What a header holds in a layout: sealed text when stored, `{ set: true }` when answered. */
export type HeaderInput = string | null | { set: true };

/** Where a card's header is sealed: bound to the card and the name, so it opens for no other. */
export function headerPlace(cardId: string, name: string): SecretPlace {
  return { kind: 'dashboard', field: `custom_header:${cardId}:${name}` };
}

type Seal = (place: SecretPlace, value: string) => Promise<string> | string;

function headersOf(card: Layout['cards'][number]): Record<string, HeaderInput> {
  if (card.type !== 'custom') return {};
  const headers = card.config.headers;
  return headers && typeof headers === 'object' ? (headers as Record<string, HeaderInput>) : {};
}

function withHeaders(
  card: Layout['cards'][number],
  headers: Record<string, unknown>,
): Layout['cards'][number] {
  const { headers: _dropped, ...config } = card.config;
  return { ...card, config: Object.keys(headers).length > 0 ? { ...config, headers } : config };
}

/**
 * The layout to store: every custom card's new header values sealed, kept ones taken from the stored layout's card
 * of the same id, removed ones left out.
 */
export async function sealLayoutHeaders(
  layout: Layout,
  stored: Layout | undefined,
  seal: Seal,
): Promise<Layout> {
  const before = new Map((stored?.cards ?? []).map((card) => [card.id, headersOf(card)]));
  const cards = [];
  for (const card of layout.cards) {
    if (card.type !== 'custom') {
      cards.push(card);
      continue;
    }
    const kept = before.get(card.id) ?? {};
    const given = headersOf(card);
    const sealed: Record<string, string> = {};
    for (const name of new Set([...Object.keys(kept), ...Object.keys(given)])) {
      const value = Object.hasOwn(given, name) ? given[name] : { set: true as const };
      if (typeof value === 'string') sealed[name] = await seal(headerPlace(card.id, name), value);
      else if (value !== null && typeof kept[name] === 'string') sealed[name] = kept[name];
    }
    cards.push(withHeaders(card, sealed));
  }
  return { ...layout, cards };
}

/** The layout as answered: each stored header as `{ set: true }`, never its value. */
export function maskLayoutHeaders(layout: Layout): Layout {
  if (!layout.cards.some((card) => Object.keys(headersOf(card)).length > 0)) return layout;
  return {
    ...layout,
    cards: layout.cards.map((card) => {
      const names = Object.keys(headersOf(card));
      return names.length === 0
        ? card
        : withHeaders(card, Object.fromEntries(names.map((n) => [n, { set: true }])));
    }),
  };
}

/** Every sealed header of a layout with its place (the key check and rotation read them). */
export function sealedLayoutHeaders(layout: Layout): { name: string; place: SecretPlace; sealed: string }[] {
  return layout.cards.flatMap((card) =>
    Object.entries(headersOf(card))
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .map(([name, sealed]) => ({ name, place: headerPlace(card.id, name), sealed })),
  );
}

/** Every custom card's sealed headers, for the key check at start and the key rotation. */
export const sealedCardHeaders: SealedStore = {
  async values(sql, options) {
    const rows = await layoutsWithSealedHeaders(sql, options);
    return rows.flatMap((row) =>
      sealedLayoutHeaders(row.layout).map(({ place, sealed }) => ({ ...place, sealed })),
    );
  },
  async reseal(sql, reseal) {
    let count = 0;
    for (const row of await layoutsWithSealedHeaders(sql, { lock: true })) {
      const next = await resealLayoutHeaders(row.layout, (place, sealed) => {
        count++;
        return reseal(place, sealed);
      });
      await replaceLayoutHeaders(sql, row.owner_key, next);
    }
    return count;
  },
};

/** The layout with every sealed header sealed again. */
async function resealLayoutHeaders(layout: Layout, reseal: Seal): Promise<Layout> {
  return {
    ...layout,
    cards: await Promise.all(
      layout.cards.map(async (card) => {
        const headers = headersOf(card);
        if (Object.keys(headers).length === 0) return card;
        const next: Record<string, string> = {};
        for (const [name, sealed] of Object.entries(headers)) {
          if (typeof sealed === 'string') next[name] = await reseal(headerPlace(card.id, name), sealed);
        }
        return withHeaders(card, next);
      }),
    ),
  };
}
