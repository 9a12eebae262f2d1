// The `theme` setting: the owner's overrides of the default palette, colour name to hex colour.
import { Type } from 'typebox';
import { defineSetting } from '../../lib/settings.ts';

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
export const colourNames = Object.keys(defaultPalette) as ColourName[];
export const hexColourPattern = '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$';

const HexColour = Type.String({ pattern: hexColourPattern });

export const themeSetting = defineSetting({
  key: 'theme',
  // Partial makes a new object schema: it is closed here, since Partial drops the options of the one it is given.
  schema: Type.Partial(
    Type.Object(
      Object.fromEntries(colourNames.map((name) => [name, HexColour])) as Record<
        ColourName,
        typeof HexColour
      >,
    ),
    { additionalProperties: false },
  ),
  defaultValue: {},
  description: 'Overrides of the default palette: colour name to #rgb or #rrggbb',
});
