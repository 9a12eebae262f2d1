// Fake upstreams for the dashboard cards, on loopback, answering in the real APIs' shapes: Open-Meteo's forecast,
// Proxmox VE's `{ "data": ... }` envelope (0/1 integers, fractional CPU, loadavg as strings), Shlink's REST API v3
// with problem+json errors. Plus a port nothing listens on and a server that never answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startUpstream, type Upstream } from '../helpers/upstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export function json(
  response: http.ServerResponse,
  status: number,
  body: unknown,
  type = 'application/json',
) {
  response.writeHead(status, { 'content-type': type });
  response.end(JSON.stringify(body));
}

/** A port nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Accepts requests and never answers. */
export function hangingUpstream(t: Teardown): Promise<Upstream> {
  return startUpstream(t, () => undefined);
}

/** Open-Meteo's /v1/forecast answer for the parameters the hub sends. */
export function forecastAnswer(query: URLSearchParams) {
  const imperial = query.get('temperature_unit') === 'fahrenheit';
  const days = [
    '2026-11-22',
    '2026-11-23',
    '2026-11-24',
    '2026-11-25',
    '2026-11-26',
    '2026-11-27',
    '2026-11-28',
  ];
  return {
    latitude: Number(query.get('latitude')),
    longitude: Number(query.get('longitude')),
    generationtime_ms: 0.08,
    utc_offset_seconds: 3600,
    timezone: 'Europe/Berlin',
    timezone_abbreviation: 'GMT+1',
    elevation: 38,
    current_units: {
      time: 'iso8601',
      interval: 'seconds',
      temperature_2m: imperial ? '°F' : '°C',
      apparent_temperature: imperial ? '°F' : '°C',
      relative_humidity_2m: '%',
      is_day: '',
      weather_code: 'wmo code',
      wind_speed_10m: imperial ? 'mp/h' : 'km/h',
      wind_direction_10m: '°',
    },
    current: {
      time: '2026-11-22T18:45',
      interval: 900,
      temperature_2m: imperial ? 41.2 : 5.1,
      apparent_temperature: imperial ? 35.6 : 2,
      relative_humidity_2m: 87,
      is_day: 0,
      weather_code: 61,
      wind_speed_10m: imperial ? 9.3 : 15,
      wind_direction_10m: 250,
    },
    daily_units: {
      time: 'iso8601',
      weather_code: 'wmo code',
      temperature_2m_max: imperial ? '°F' : '°C',
      temperature_2m_min: imperial ? '°F' : '°C',
      precipitation_probability_max: '%',
      precipitation_sum: imperial ? 'inch' : 'mm',
    },
    daily: {
      time: days,
      weather_code: [61, 3, 2, 0, 45, 71, 95],
      temperature_2m_max: [7.2, 8, 9.1, 10, 6.5, 1.2, 12],
      temperature_2m_min: [2.1, 3, 4, 1.5, 0.2, -3.4, 5],
      precipitation_probability_max: [80, 20, 10, 0, 5, 60, 90],
      precipitation_sum: [4.2, 0.1, 0, 0, 0, 3.3, 12.5],
    },
  };
}

export interface FakeOpenMeteo extends Upstream {
  /** What the next answers are: the forecast, an Open-Meteo error, or no answer at all. */
  mode: 'ok' | 'error' | 'hang';
  forecasts(): number;
}

export async function fakeOpenMeteo(t: Teardown): Promise<FakeOpenMeteo> {
  // The handler reads the mode the test sets on the returned object.
  const state: { mode: FakeOpenMeteo['mode'] } = { mode: 'ok' };
  const upstream = await startUpstream(t, (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    if (url.pathname !== '/v1/forecast') return json(response, 404, { error: true, reason: 'Not Found' });
    if (state.mode === 'hang') return;
    if (state.mode === 'error') {
      return json(response, 400, {
        error: true,
        reason: 'Cannot initialize WeatherVariable from invalid String value',
      });
    }
    const latitude = Number(url.searchParams.get('latitude'));
    if (!(latitude >= -90 && latitude <= 90)) {
      return json(response, 400, {
        error: true,
        reason: `Latitude must be in range of -90 to 90°. Given: ${latitude}.`,
      });
    }
    json(response, 200, forecastAnswer(url.searchParams));
  });
  const fake = Object.assign(upstream, {
    mode: 'ok' as FakeOpenMeteo['mode'],
    forecasts: () => upstream.requests.filter((r) => r.url.startsWith('/v1/forecast')).length,
  });
  Object.defineProperty(fake, 'mode', {
    get: () => state.mode,
    set: (value: FakeOpenMeteo['mode']) => {
      state.mode = value;
    },
  });
  return fake;
}
