// Layout rules: sizes (legacy s/m/l mapped), per-type config, unique ids, snap packing and free-mode overlaps.
// Every refusal names the card it is about, so the owner knows which one to fix.
import { type TSchema, Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { compiledOnUse } from '../../lib/typebox.ts';
import { CustomCardConfig } from './custom.ts';
import {
  type Card,
  type CardType,
  cardTypes,
  gridColumns,
  type Layout,
  type LayoutInput,
  legacySizes,
} from './schema.ts';

const defaultHeight = 2;

const Title = Type.Optional(Type.String({ maxLength: 100 }));
const Latitude = Type.Number({ minimum: -90, maximum: 90 });
const Longitude = Type.Number({ minimum: -180, maximum: 180 });
const strict = <T extends Record<string, TSchema>>(fields: T) =>
  Type.Object({ title: Title, ...fields }, { additionalProperties: false });

const configSchemas: Record<CardType, TSchema> = {
  clock: strict({ timezone: Type.Optional(Type.String()), hour12: Type.Optional(Type.Boolean()) }),
  weather: strict({
    latitude: Type.Optional(Latitude),
    longitude: Type.Optional(Longitude),
    label: Type.Optional(Type.String({ maxLength: 100 })),
  }),
  host: strict({
    mounts: Type.Optional(Type.Array(Type.String({ pattern: '^/', maxLength: 1024 }), { maxItems: 32 })),
  }),
  speedtest: strict({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })) }),
  cluster: strict({ node: Type.Optional(Type.String({ maxLength: 100 })) }),
  storage: strict({}),
  backups: strict({}),
  'ai-usage': strict({}),
  health: strict({
    categories: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  }),
  blank: strict({}),
  flame: strict({ intensity: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })) }),
  // The launcher: every group's apps, or one group's; tiles in `columns` columns.
  apps: strict({
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    columns: Type.Optional(Type.Integer({ minimum: 1, maximum: 12 })),
  }),
  // The refs of a space as links; `tag` keeps those whose source is that tag (imported bookmark groups).
  bookmarks: strict({
    space_id: Type.String({ pattern: '^[0-9a-fA-F]{8}-([0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$' }),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  }),
  // A JSON endpoint and the values it shows (custom.ts).
  custom: CustomCardConfig,
  incidents: strict({}),
};
const checkers = Object.fromEntries(
  Object.entries(configSchemas).map(([type, schema]) => [type, compiledOnUse(schema)]),
) as Record<CardType, ReturnType<typeof compiledOnUse>>;

const timeZones = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);

function invalid(card: string, problem: string): Error {
  return hubError('LAYOUT_INVALID', `card "${card}": ${problem}`);
}

function span(id: string, size: unknown): number {
  if (typeof size === 'string' && Object.hasOwn(legacySizes, size)) {
    return legacySizes[size as keyof typeof legacySizes];
  }
  if (typeof size === 'number' && Number.isInteger(size) && size >= 1 && size <= gridColumns) return size;
  throw invalid(id, `size must be an integer from 1 to 12 or one of s, m, l (got ${JSON.stringify(size)})`);
}

function checkConfig(id: string, type: CardType, config: Record<string, unknown>): void {
  const checker = checkers[type]();
  if (!checker.Check(config)) {
    const [first] = checker.Errors(config);
    const field = first?.instancePath ? `config${first.instancePath.replace(/\//g, '.')}` : 'config';
    const extra = first?.params as { additionalProperties?: string[] } | undefined;
    // An unknown key is reported either as the object's additionalProperties or as the key failing `false`.
    const unknownKey = extra?.additionalProperties?.[0];
    const named = unknownKey
      ? `config.${unknownKey} is not a ${type} setting`
      : first?.message === 'schema is false'
        ? `${field} is not a ${type} setting`
        : `${field} ${first?.message ?? 'is not valid'}`;
    throw invalid(id, named);
  }
  if (type === 'clock' && typeof config.timezone === 'string' && !timeZones.has(config.timezone)) {
    throw invalid(id, `config.timezone "${config.timezone}" is not an IANA time zone`);
  }
  if (type === 'weather' && (config.latitude === undefined) !== (config.longitude === undefined)) {
    throw invalid(id, 'config.latitude and config.longitude go together');
  }
}

function overlaps(a: Card, b: Card): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/** Packs cards left to right, top to bottom in list order; a card that does not fit starts the next row. */
export function pack(cards: Card[]): Card[] {
  let x = 0;
  let rowTop = 0;
  let rowBottom = 0;
  return cards.map((card) => {
    if (x + card.w > gridColumns) {
      x = 0;
      rowTop = rowBottom;
    }
    const placed = { ...card, x, y: rowTop };
    x += card.w;
    rowBottom = Math.max(rowBottom, rowTop + card.h);
    return placed;
  });
}

/** The layout as stored: sizes as spans, configs checked, positions computed (snap) or checked (free). */
export function normaliseLayout(input: LayoutInput): Layout {
  const seen = new Set<string>();
  const cards = input.cards.map((raw): Card => {
    const id = raw.id;
    if (seen.has(id)) throw invalid(id, 'the id is used by another card; ids are unique');
    seen.add(id);
    if (!(cardTypes as readonly string[]).includes(raw.type)) {
      throw invalid(id, `unknown type "${raw.type}"; known: ${cardTypes.join(', ')}`);
    }
    const type = raw.type as CardType;
    const size = span(id, raw.size);
    const config = raw.config ?? {};
    checkConfig(id, type, config);
    return { id, type, size, x: raw.x ?? 0, y: raw.y ?? 0, w: size, h: raw.h ?? defaultHeight, config };
  });
  if (input.mode === 'snap') return { mode: 'snap', cards: pack(cards) };
  for (const [i, card] of cards.entries()) {
    if (card.x + card.w > gridColumns) {
      throw invalid(card.id, `x ${card.x} with size ${card.w} reaches past column ${gridColumns}`);
    }
    const other = cards.slice(0, i).find((earlier) => overlaps(earlier, card));
    if (other) throw invalid(card.id, `overlaps card "${other.id}" in free mode`);
  }
  return { mode: 'free', cards };
}

/** With nothing saved: clock and weather at span 2 (1/6 of the width), then host, health, speed test, storage and backups. */
export function defaultLayout(): Layout {
  const card = (id: CardType, size: number): Card => ({
    id,
    type: id,
    size,
    x: 0,
    y: 0,
    w: size,
    h: defaultHeight,
    config: {},
  });
  return {
    mode: 'snap',
    cards: pack([
      card('clock', 2),
      card('weather', 2),
      card('host', 4),
      card('health', 4),
      card('speedtest', 4),
      card('storage', 4),
      card('backups', 4),
    ]),
  };
}
