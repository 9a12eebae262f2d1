// Open-Meteo's forecast API: the request the weather card needs and its answer turned into the card's shape.
// `current.time` is local time without an offset (ISO 8601 "2026-11-22T18:45"), `utc_offset_seconds` says where it
// is; errors are 400 `{ "error": true, "reason": ... }`.
import { callUpstream } from '../../lib/upstream.ts';

export interface Place {
  latitude: number;
  longitude: number;
  units: 'metric' | 'imperial';
  timezone: string;
}

const current = [
  'temperature_2m',
  'apparent_temperature',
  'relative_humidity_2m',
  'is_day',
  'weather_code',
  'wind_speed_10m',
  'wind_direction_10m',
];
const daily = [
  'weather_code',
  'temperature_2m_max',
  'temperature_2m_min',
  'precipitation_probability_max',
  'precipitation_sum',
];

/** WMO weather interpretation codes as Open-Meteo documents them. */
const wmo: Record<number, string> = {
  0: 'Clear sky',
  1: 'Mainly clear',
  2: 'Partly cloudy',
  3: 'Overcast',
  45: 'Fog',
  48: 'Depositing rime fog',
  51: 'Light drizzle',
  53: 'Moderate drizzle',
  55: 'Dense drizzle',
  56: 'Light freezing drizzle',
  57: 'Dense freezing drizzle',
  61: 'Slight rain',
  63: 'Moderate rain',
  65: 'Heavy rain',
  66: 'Light freezing rain',
  67: 'Heavy freezing rain',
  71: 'Slight snow fall',
  73: 'Moderate snow fall',
  75: 'Heavy snow fall',
  77: 'Snow grains',
  80: 'Slight rain showers',
  81: 'Moderate rain showers',
  82: 'Violent rain showers',
  85: 'Slight snow showers',
  86: 'Heavy snow showers',
  95: 'Thunderstorm',
  96: 'Thunderstorm with slight hail',
  99: 'Thunderstorm with heavy hail',
};

export function describeWeatherCode(code: number | null): string {
  return code === null ? 'Unknown' : (wmo[code] ?? `Weather code ${code}`);
}

export function forecastUrl(base: string, place: Place): string {
  const query = new URLSearchParams({
    latitude: String(place.latitude),
    longitude: String(place.longitude),
    current: current.join(','),
    daily: daily.join(','),
    timezone: place.timezone,
    forecast_days: '7',
  });
  if (place.units === 'imperial') {
    query.set('temperature_unit', 'fahrenheit');
    query.set('wind_speed_unit', 'mph');
    query.set('precipitation_unit', 'inch');
  }
  return `${base}/v1/forecast?${query}`;
}

interface ForecastAnswer {
  latitude: number;
  longitude: number;
  timezone: string;
  utc_offset_seconds: number;
  current_units: Record<string, string>;
  current: Record<string, number | string | null>;
  daily_units: Record<string, string>;
  daily: Record<string, (number | string | null)[]>;
}

const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** "2026-11-22T18:45" at offset +3600 s → "2026-11-22T18:45:00+01:00". */
function withOffset(local: string, offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0');
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  const seconds = local.length === 16 ? `${local}:00` : local;
  return `${seconds}${sign}${hh}:${mm}`;
}

export function toWeather(answer: ForecastAnswer, place: Place) {
  const now = answer.current;
  const days = (answer.daily.time ?? []).map((date, i) => {
    const code = num(answer.daily.weather_code?.[i]);
    return {
      date: String(date),
      weather_code: code,
      description: describeWeatherCode(code),
      temperature_max: num(answer.daily.temperature_2m_max?.[i]),
      temperature_min: num(answer.daily.temperature_2m_min?.[i]),
      precipitation_probability: num(answer.daily.precipitation_probability_max?.[i]),
      precipitation: num(answer.daily.precipitation_sum?.[i]),
    };
  });
  const code = num(now.weather_code);
  return {
    latitude: answer.latitude,
    longitude: answer.longitude,
    timezone: answer.timezone,
    observed_at: withOffset(String(now.time), answer.utc_offset_seconds),
    current: {
      temperature: num(now.temperature_2m),
      apparent_temperature: num(now.apparent_temperature),
      humidity: num(now.relative_humidity_2m),
      wind_speed: num(now.wind_speed_10m),
      wind_direction: num(now.wind_direction_10m),
      weather_code: code,
      description: describeWeatherCode(code),
      is_day: now.is_day === 1,
    },
    today: {
      temperature_min: days[0]?.temperature_min ?? null,
      temperature_max: days[0]?.temperature_max ?? null,
      precipitation_probability: days[0]?.precipitation_probability ?? null,
    },
    daily: days,
    units: {
      system: place.units,
      temperature: answer.current_units.temperature_2m ?? (place.units === 'imperial' ? '°F' : '°C'),
      wind_speed: answer.current_units.wind_speed_10m ?? (place.units === 'imperial' ? 'mp/h' : 'km/h'),
      humidity: answer.current_units.relative_humidity_2m ?? '%',
      precipitation: answer.daily_units.precipitation_sum ?? (place.units === 'imperial' ? 'inch' : 'mm'),
    },
  };
}
export type Weather = ReturnType<typeof toWeather>;

export async function fetchForecast(base: string, place: Place, timeoutMs: number): Promise<Weather> {
  const answer = await callUpstream(forecastUrl(base, place), { timeoutMs });
  const body = answer.body as ForecastAnswer | null;
  if (!body || typeof body !== 'object' || !body.current || !body.daily) {
    throw new Error('Open-Meteo answered without current or daily data');
  }
  return toWeather(body, place);
}
