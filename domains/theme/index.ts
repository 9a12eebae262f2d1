// The UI palette: twelve named colours, defaults merged with the owner's overrides (the `theme` setting).
// Reading is open, since the UI applies the palette at boot before anyone signs in; writes are the owner's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { errors } from '../../lib/schemas.ts';
import { deleteSetting, getSetting, putSetting } from '../settings/store.ts';

export const defaultPalette = {
  background: '#0f1115',
  surface: '#171a21',
  surface_alt: '#1f232c',
  border: '#2c313c',
  text: '#e6e8ee',
  text_muted: '#9aa3b2',
  accent: '#4f9cf9',
  accent_alt: '#a77bf3',
  success: '#3fb950',
  warning: '#d29922',
  danger: '#f85149',
  info: '#39c5cf',
} as const;

export type ColourName = keyof typeof defaultPalette;
const colourNames = Object.keys(defaultPalette) as ColourName[];
const hexColour = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

const Palette = Type.Object(
  Object.fromEntries(colourNames.map((name) => [name, Type.String()])) as Record<
    ColourName,
    ReturnType<typeof Type.String>
  >,
);
const Theme = Type.Object(
  { palette: Palette, overrides: Type.Record(Type.String(), Type.String()) },
  { $id: 'Theme' },
);
const Overrides = Type.Record(Type.String(), Type.Unknown(), {
  description: `Any of: ${colourNames.join(', ')}; each #rgb or #rrggbb.`,
});
type Overrides = Static<typeof Overrides>;

/** Checks every key and colour, naming the first bad one, so a 400 tells the owner exactly what to fix. */
function validOverrides(input: Overrides): Record<string, string> {
  for (const [key, value] of Object.entries(input)) {
    if (!(colourNames as string[]).includes(key)) {
      throw Object.assign(new Error(`unknown colour "${key}"; known: ${colourNames.join(', ')}`), {
        statusCode: 400,
        code: 'UNKNOWN_COLOUR',
      });
    }
    if (typeof value !== 'string' || !hexColour.test(value)) {
      throw Object.assign(
        new Error(`colour "${key}" must be a hex colour like #rgb or #rrggbb (got ${JSON.stringify(value)})`),
        {
          statusCode: 400,
          code: 'INVALID_COLOUR',
        },
      );
    }
  }
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, String(value).toLowerCase()]));
}

/** The stored overrides that are still valid: the setting can also be written through /api/settings/theme. */
function storedOverrides(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value)
      .filter(
        ([key, colour]) =>
          (colourNames as string[]).includes(key) && typeof colour === 'string' && hexColour.test(colour),
      )
      .map(([key, colour]) => [key, String(colour).toLowerCase()]),
  );
}

const tags = ['theme'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Theme);

  async function current() {
    const overrides = storedOverrides(await getSetting(app.sql, 'theme'));
    return { palette: { ...defaultPalette, ...overrides }, overrides };
  }

  app.get(
    '/theme',
    {
      schema: {
        tags,
        summary: 'The palette (defaults merged with overrides)',
        response: { 200: Type.Ref('Theme') },
      },
    },
    current,
  );

  const writeSchema = (summary: string) => ({
    onRequest: app.owner,
    schema: {
      tags,
      summary,
      body: Overrides,
      response: { 200: Type.Ref('Theme'), ...errors(400, 401, 403) },
    },
  });

  app.put('/theme', writeSchema('Replace the overrides'), async (request) => {
    await putSetting(app.sql, 'theme', validOverrides(request.body));
    return current();
  });

  app.post('/theme', writeSchema('Merge colours into the overrides'), async (request) => {
    const merged = validOverrides(request.body);
    await app.sql.begin(async (tx) => {
      // The row lock keeps two concurrent merges from losing each other's colours.
      await tx`select 1 from app_settings where key = 'theme' for update`;
      const existing = storedOverrides(await getSetting(tx, 'theme'));
      await putSetting(tx, 'theme', { ...existing, ...merged });
    });
    return current();
  });

  app.delete(
    '/theme',
    {
      onRequest: app.owner,
      schema: {
        tags,
        summary: 'Reset: remove every override',
        response: { 200: Type.Ref('Theme'), ...errors(401, 403) },
      },
    },
    async () => {
      await deleteSetting(app.sql, 'theme');
      return current();
    },
  );
};

export default plugin;
