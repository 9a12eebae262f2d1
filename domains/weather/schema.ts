// The weather card's query.
import { Type } from 'typebox';

export const WeatherQuery = Type.Object({
  latitude: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
  longitude: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  units: Type.Optional(Type.Union([Type.Literal('metric'), Type.Literal('imperial')])),
});
