// The weather card, from Open-Meteo, cached 15 minutes per place and units.
//   GET /api/weather   current conditions, today and a 7-day forecast; ?latitude=&longitude= for a card's own place
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { type CardClockOptions, cardJson, TtlCache } from '../../lib/cache.ts';
import { hubError } from '../../lib/errors.ts';
import { CardBody, errors } from '../../lib/schemas.ts';
import { upstreamFailure } from '../../lib/upstream.ts';
import type { HubModule } from '../../module.ts';
import { agentAccess } from '../../plugins/auth.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { readSetting } from '../settings/registry.ts';
import { fetchForecast, type Place, type Weather } from './open-meteo.ts';
import { WeatherQuery } from './schema.ts';
import { weatherSetting } from './setting.ts';

const tags = ['dashboard'];
const jsonType = 'application/json; charset=utf-8';
const notConfigured = JSON.stringify({ configured: false });
const weatherTtlMs = 15 * 60_000;
/** How long a read of the `weather` setting is reused: a changed place shows within seconds, not per request. */
const settingTtlMs = 5_000;

const plugin: FastifyPluginAsyncTypebox<CardClockOptions> = async (app, options) => {
  const config = app.config.dashboard;
  const cache = new TtlCache<Weather & { label: string | null }>({
    ttlMs: weatherTtlMs,
    now: () => options.now().getTime(),
  });
  const settings = new TtlCache<Static<typeof weatherSetting.schema>>({
    ttlMs: settingTtlMs,
    now: () => options.now().getTime(),
  });

  /** The card's place: the `weather` setting's choice over the weather integration (environment or Settings). */
  async function defaults() {
    const stored = (await settings.get('weather', () => readSetting(app.sql, weatherSetting))).value;
    const base = (await integrationSettings(app, 'weather'))?.settings ?? { ...config.weather, label: null };
    const hasPlace = stored.latitude !== undefined && stored.longitude !== undefined;
    return {
      url: base.url,
      latitude: hasPlace ? (stored.latitude as number) : base.latitude,
      longitude: hasPlace ? (stored.longitude as number) : base.longitude,
      label: stored.label ?? base.label,
      units: stored.units ?? base.units,
      timezone: stored.timezone ?? base.timezone,
    };
  }

  async function weather(query: { latitude?: number; longitude?: number; units?: 'metric' | 'imperial' }) {
    if ((query.latitude === undefined) !== (query.longitude === undefined)) {
      throw hubError('WEATHER_PLACE_INVALID', 'latitude and longitude go together: give both or neither');
    }
    const fallback = await defaults();
    const own = query.latitude !== undefined;
    const latitude = own ? (query.latitude as number) : fallback.latitude;
    const longitude = own ? (query.longitude as number) : fallback.longitude;
    if (latitude === null || longitude === null) return notConfigured;
    const place: Place = {
      latitude,
      longitude,
      units: query.units ?? fallback.units,
      timezone: fallback.timezone,
    };
    const key = `${fallback.url},${latitude},${longitude},${place.units},${place.timezone}`;
    try {
      const cached = await cache.get(key, async () => ({
        ...(await fetchForecast(fallback.url, place, config.upstreamTimeoutMs)),
        label: own ? null : fallback.label,
      }));
      return cardJson(cached);
    } catch (error) {
      throw upstreamFailure('WEATHER_UPSTREAM_FAILED', error);
    }
  }

  app.cards.addSource({
    type: 'weather',
    intervalMs: 60_000,
    read: async () => JSON.parse(await weather({})),
  });

  app.get(
    '/weather',
    {
      schema: {
        tags,
        summary: 'Weather card: current conditions and a 7-day forecast (Open-Meteo)',
        description:
          'Cached 15 minutes per place and units. Not configured: { configured: false }. Open-Meteo failing with ' +
          'nothing cached: 502 WEATHER_UPSTREAM_FAILED; with a cached value: that value, stale: true and age_seconds.',
        querystring: WeatherQuery,
        response: { 200: CardBody, ...errors(400, 401, 502) },
      },
    },
    async (request, reply) => reply.type(jsonType).send(await weather(request.query)),
  );
};

export default {
  name: 'weather',
  routes: agentAccess(plugin),
  settings: [weatherSetting],
} satisfies HubModule;
