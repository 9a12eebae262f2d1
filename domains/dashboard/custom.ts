// The custom card: a JSON endpoint the owner sets, and the values it shows, each picked by a JSON Pointer and
// formatted. Fetched by the hub with the owner-configured upstream client (a LAN address is allowed, as for health
// checks; cloud metadata never), with a time limit, and cached for the card's interval. An unreachable upstream, an
// error status or an answer that is not JSON is the card's reason, never a 5xx.
import { type Static, Type } from 'typebox';
import { Uuid } from '../../lib/schemas.ts';
import { callUpstream, UpstreamError } from '../../lib/upstream.ts';

export const customFormats = ['text', 'number', 'bytes', 'percent', 'duration', 'date'] as const;

export const CustomCardConfig = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: 100 })),
    url: Type.String({ pattern: '^https?://', maxLength: 2048 }),
    headers: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }),
        Type.Union([
          Type.String({ maxLength: 4096 }),
          Type.Null(),
          Type.Object({ set: Type.Literal(true) }, { additionalProperties: false }),
        ]),
        {
          maxProperties: 10,
          description:
            'write-only: a layout answers { set: true } for each stored header; { set: true } (or leaving the ' +
            'header out) keeps the stored value, a string replaces it, null removes it',
        },
      ),
    ),
    fields: Type.Array(
      Type.Object(
        {
          label: Type.String({ minLength: 1, maxLength: 100 }),
          pointer: Type.String({
            pattern: '^(/.*)?$',
            maxLength: 500,
            description: 'a JSON Pointer (RFC 6901)',
          }),
          format: Type.Optional(Type.Union(customFormats.map((format) => Type.Literal(format)))),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 20 },
    ),
    interval_s: Type.Optional(Type.Integer({ minimum: 10, maximum: 86_400 })),
  },
  { additionalProperties: false, $id: 'CustomCardConfig' },
);
export type CustomCardConfig = Static<typeof CustomCardConfig>;

export const CustomCardRead = Type.Object(
  {
    ...CustomCardConfig.properties,
    card_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'the saved card whose stored headers are sent (those the body does not give as a string)',
      }),
    ),
    board_id: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type CustomCardRead = Static<typeof CustomCardRead>;

/** The headers an upstream is called with: plain text only. */
export type CustomCardRequest = Omit<CustomCardConfig, 'headers'> & { headers?: Record<string, string> };

export const CustomCardData = Type.Object(
  {
    ok: Type.Boolean(),
    message: Type.Union([Type.String(), Type.Null()], { description: 'why the values are missing' }),
    fields: Type.Array(
      Type.Object({
        label: Type.String(),
        value: Type.Unknown({ description: 'the value found, null when the pointer finds none' }),
        text: Type.String({ description: 'the value formatted' }),
      }),
    ),
    fetched_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'CustomCardData' },
);
export type CustomCardData = Static<typeof CustomCardData>;

/** The value a JSON Pointer (RFC 6901) names in `document`, undefined when there is none. */
export function pointAt(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  let current: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(token)) current = current[Number(token)];
    else if (current !== null && typeof current === 'object' && Object.hasOwn(current, token)) {
      current = (current as Record<string, unknown>)[token];
    } else return undefined;
  }
  return current;
}

const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** A value as the card shows it; a value the format cannot take is shown as it is. */
export function formatValue(value: unknown, format: (typeof customFormats)[number] = 'text'): string {
  if (value === undefined || value === null) return '—';
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  const plain = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (format === 'text' || (format !== 'date' && !Number.isFinite(number))) return plain;
  switch (format) {
    case 'number':
      return number.toLocaleString('en-US', { maximumFractionDigits: 2 });
    case 'bytes': {
      let size = number;
      let unit = 0;
      while (Math.abs(size) >= 1024 && unit < units.length - 1) {
        size /= 1024;
        unit++;
      }
      return `${unit === 0 ? size : size.toFixed(1)} ${units[unit]}`;
    }
    case 'percent':
      return `${number.toFixed(1)}%`;
    case 'duration': {
      const seconds = Math.round(number);
      const parts = [
        [Math.floor(seconds / 86_400), 'd'],
        [Math.floor((seconds % 86_400) / 3600), 'h'],
        [Math.floor((seconds % 3600) / 60), 'm'],
        [seconds % 60, 's'],
      ] as const;
      const shown = parts.filter(([amount]) => amount > 0).slice(0, 2);
      return shown.length === 0 ? '0s' : shown.map(([amount, unit]) => `${amount}${unit}`).join(' ');
    }
    case 'date': {
      const date = new Date(typeof value === 'number' && value < 1e12 ? value * 1000 : (value as string));
      return Number.isNaN(date.getTime()) ? plain : date.toISOString();
    }
  }
}

/** Reads the card's upstream and picks its values. */
export async function readCustomCard(config: CustomCardRequest, timeoutMs: number): Promise<CustomCardData> {
  const fetched_at = new Date().toISOString();
  const failed = (message: string): CustomCardData => ({ ok: false, message, fields: [], fetched_at });
  let body: unknown;
  let contentType: unknown;
  try {
    const answer = await callUpstream(config.url, { headers: config.headers, timeoutMs });
    body = answer.body;
    contentType = answer.headers['content-type'];
  } catch (error) {
    if (error instanceof UpstreamError) return failed(`${config.url}: ${error.message}`);
    throw error;
  }
  // callUpstream parses what parses as JSON and keeps anything else as text.
  if (typeof body === 'string' || body === null) {
    return failed(`${config.url} did not answer JSON (${contentType ?? 'no content type'})`);
  }
  return {
    ok: true,
    message: null,
    fetched_at,
    fields: config.fields.map((field) => {
      const value = pointAt(body, field.pointer);
      return { label: field.label, value: value ?? null, text: formatValue(value, field.format) };
    }),
  };
}

const maxCached = 200;

/** Each card's answer, kept for its interval (60 s unless it says); the same config shares one fetch. */
export class CustomCardCache {
  #entries = new Map<string, { until: number; data: Promise<CustomCardData> }>();
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
  }

  read(config: CustomCardRequest, now = Date.now()): Promise<CustomCardData> {
    const key = JSON.stringify(config);
    const cached = this.#entries.get(key);
    if (cached && cached.until > now) return cached.data;
    const data = readCustomCard(config, this.timeoutMs);
    this.#entries.delete(key);
    this.#entries.set(key, { until: now + (config.interval_s ?? 60) * 1000, data });
    data.catch(() => this.#entries.delete(key));
    if (this.#entries.size > maxCached) this.#entries.delete(this.#entries.keys().next().value as string);
    return data;
  }
}
