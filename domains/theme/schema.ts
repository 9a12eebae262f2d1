// The theme routes' schemas: the palette, the owner's overrides and what PUT /api/theme takes.
import { type Static, Type } from 'typebox';
import { type ColourName, colourNames } from './setting.ts';

export const Palette = Type.Object(
  Object.fromEntries(colourNames.map((name) => [name, Type.String()])) as Record<
    ColourName,
    ReturnType<typeof Type.String>
  >,
);

export const Theme = Type.Object(
  { palette: Palette, overrides: Type.Record(Type.String(), Type.String()) },
  { $id: 'Theme' },
);

export const Overrides = Type.Record(Type.String(), Type.Unknown(), {
  description: `Any of: ${colourNames.join(', ')}; each #rgb or #rrggbb.`,
});

export type Overrides = Static<typeof Overrides>;

/** What GET /theme answers, sent back as it came: the palette decides, overrides are implied by it. */
export const ThemeInput = Type.Object(
  {
    palette: Type.Record(Type.String(), Type.Unknown()),
    overrides: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const ThemeBody = Type.Union([ThemeInput, Overrides], {
  description: `The overrides (colour name to #rgb or #rrggbb), or what GET /theme returns: { palette, overrides }, of which only the palette colours that differ from the defaults are stored.`,
});
