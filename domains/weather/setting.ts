// The `weather` setting: the owner's run-time choice of place, units and time zone, over the WEATHER_* environment.
import { Type } from 'typebox';
import { defineSetting } from '../../lib/settings.ts';

export const weatherSetting = defineSetting({
  key: 'weather',
  schema: Type.Object(
    {
      latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
      longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
      label: Type.Optional(Type.String({ maxLength: 100 })),
      units: Type.Optional(Type.Union([Type.Literal('metric'), Type.Literal('imperial')])),
      timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    },
    { additionalProperties: false },
  ),
  defaultValue: {},
  description:
    'Default place (latitude and longitude together, label), units (metric or imperial) and time zone (IANA or auto) ' +
    'of the weather card; unset fields come from WEATHER_LATITUDE, WEATHER_LONGITUDE, WEATHER_UNITS, WEATHER_TIMEZONE',
});
