// The UI palette: twelve named colours, defaults merged with the owner's overrides (the `theme` setting).
// Reading is open, since the UI applies the palette at boot before anyone signs in; writes are the owner's.
//
// Routes it registers (access in brackets):
//   GET    /api/theme  [public]
//   PUT    /api/theme  [owner only]
//   POST   /api/theme  [owner only]
//   DELETE /api/theme  [owner only]
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { errors } from '../../lib/schemas.ts';
import type { HubModule } from '../../module.ts';
import { ownerOnly, publicAccess } from '../../plugins/auth.ts';
import { readSetting, resetSetting, writeSetting } from '../settings/registry.ts';
import { type Overrides, Theme, ThemeBody } from './schema.ts';
import { colourNames, defaultPalette, hexColourPattern, themeSetting } from './setting.ts';

const hexColour = new RegExp(hexColourPattern);

/** The flat overrides a body means: a returned theme keeps only its palette colours that are not the default. */
function overridesOf(body: Static<typeof ThemeBody>): Overrides {
  if (!('palette' in body) || typeof body.palette !== 'object' || body.palette === null) return body;
  const palette = validOverrides(body.palette as Overrides);
  const defaults: Record<string, string> = defaultPalette;
  return Object.fromEntries(Object.entries(palette).filter(([name, colour]) => colour !== defaults[name]));
}

/** Checks every key and colour, naming the first bad one, so a 400 tells the owner exactly what to fix. */
function validOverrides(input: Overrides): Record<string, string> {
  for (const [key, value] of Object.entries(input)) {
    if (!(colourNames as string[]).includes(key)) {
      throw hubError('UNKNOWN_COLOUR', `unknown colour "${key}"; known: ${colourNames.join(', ')}`);
    }
    if (typeof value !== 'string' || !hexColour.test(value)) {
      throw hubError(
        'INVALID_COLOUR',
        `colour "${key}" must be a hex colour like #rgb or #rrggbb (got ${JSON.stringify(value)})`,
      );
    }
  }
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, String(value).toLowerCase()]));
}

const tags = ['theme'];

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(Theme);

  async function current() {
    const overrides = await readSetting(app.sql, themeSetting);
    return { palette: { ...defaultPalette, ...overrides }, overrides };
  }

  await app.register(
    publicAccess(async (open) => {
      open.get(
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
    }),
  );

  const writeSchema = (summary: string) => ({
    schema: {
      tags,
      summary,
      body: ThemeBody,
      response: { 200: Type.Ref('Theme'), ...errors(400, 401, 403) },
    },
  });

  await app.register(
    ownerOnly(async (owner) => {
      owner.put('/theme', writeSchema('Replace the overrides'), async (request) => {
        await writeSetting(app.sql, themeSetting, validOverrides(overridesOf(request.body)));
        return current();
      });

      owner.post('/theme', writeSchema('Merge colours into the overrides'), async (request) => {
        const merged = validOverrides(overridesOf(request.body));
        await app.sql.begin(async (tx) => {
          // The row lock keeps two concurrent merges from losing each other's colours.
          await tx`select 1 from app_settings where key = 'theme' for update`;
          const existing = await readSetting(tx, themeSetting);
          await writeSetting(tx, themeSetting, { ...existing, ...merged });
        });
        return current();
      });

      owner.delete(
        '/theme',
        {
          schema: {
            tags,
            summary: 'Reset: remove every override',
            response: { 200: Type.Ref('Theme'), ...errors(401, 403) },
          },
        },
        async () => {
          await resetSetting(app.sql, themeSetting);
          return current();
        },
      );
    }),
  );
};

export default {
  name: 'theme',
  routes: plugin,
  settings: [themeSetting],
} satisfies HubModule;
