// The dashboard layout: a mode and the cards in order, each with its column span, grid position and config.
import { type Static, Type } from 'typebox';

export const cardTypes = [
  'clock',
  'weather',
  'host',
  'speedtest',
  'cluster',
  'storage',
  'backups',
  'ai-usage',
  'health',
  'blank',
  'flame',
  'apps',
  'bookmarks',
  'custom',
  'incidents',
] as const;
export type CardType = (typeof cardTypes)[number];

export const gridColumns = 12;
export const maxCards = 100;
/** Legacy sizes still accepted on write. */
export const legacySizes = { s: 3, m: 6, l: 12 } as const;

export const Card = Type.Object({
  id: Type.String(),
  type: Type.String({ enum: [...cardTypes] }),
  size: Type.Integer({ minimum: 1, maximum: gridColumns }),
  x: Type.Integer({ minimum: 0 }),
  y: Type.Integer({ minimum: 0 }),
  w: Type.Integer({ minimum: 1 }),
  h: Type.Integer({ minimum: 1 }),
  config: Type.Record(Type.String(), Type.Unknown()),
});
export type Card = Static<typeof Card> & { type: CardType };

export const Layout = Type.Object(
  {
    mode: Type.Union([Type.Literal('snap'), Type.Literal('free')]),
    cards: Type.Array(Card),
  },
  { $id: 'DashboardLayout' },
);
export type Layout = { mode: 'snap' | 'free'; cards: Card[] };

const CardInput = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64 }),
    type: Type.String({ description: `One of ${cardTypes.join(', ')}` }),
    size: Type.Unknown({
      description: 'Column span, an integer 1 to 12; the legacy s, m and l are stored as 3, 6 and 12',
    }),
    x: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    y: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
    w: Type.Optional(Type.Integer({ minimum: 1, maximum: gridColumns })),
    h: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const LayoutInput = Type.Object(
  {
    mode: Type.Union([Type.Literal('snap'), Type.Literal('free')]),
    cards: Type.Array(CardInput, { maxItems: maxCards }),
  },
  { additionalProperties: false },
);
export type LayoutInput = Static<typeof LayoutInput>;
