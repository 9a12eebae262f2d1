// The weather card against a fake Open-Meteo on loopback: the request it sends, the answer it gives, the 15-minute
// cache per place and units (counted in upstream calls), and the upstream error rules.
import t from 'tap';
import { testApp } from '../../helpers/app.ts';
import { closedPort, fakeOpenMeteo, hangingUpstream } from './fakes.ts';

let clock = Date.parse('2026-11-22T17:45:00Z');
const now = () => new Date(clock);
const minutes = (n: number) => {
  clock += n * 60_000;
};

t.test('not configured: 200 { configured: false }, and nothing is called', async (t) => {
  const meteo = await fakeOpenMeteo(t);
  const ta = await testApp(t, { env: { WEATHER_URL: meteo.url }, now });
  const response = await ta.asOwner({ method: 'GET', url: '/api/weather' });
  t.equal(response.statusCode, 200);
  t.same(response.json(), { configured: false });
  t.equal(meteo.requests.length, 0);
});

t.test(
  'a configured place: the real request, the card answer, a 15-minute cache per place and units',
  async (t) => {
    const meteo = await fakeOpenMeteo(t);
    const ta = await testApp(t, {
      env: {
        WEATHER_URL: meteo.url,
        WEATHER_LATITUDE: '52.52',
        WEATHER_LONGITUDE: '13.41',
        WEATHER_TIMEZONE: 'Europe/Berlin',
      },
      now,
    });
    const read = (query = '') => ta.asOwner({ method: 'GET', url: `/api/weather${query}` });
    const first = await read();
    t.equal(first.statusCode, 200, first.body);
    const sent = new URL(meteo.requests[0].url, 'http://x').searchParams;
    t.equal(sent.get('latitude'), '52.52');
    t.equal(sent.get('longitude'), '13.41');
    t.equal(sent.get('timezone'), 'Europe/Berlin');
    t.match(sent.get('current'), /temperature_2m/);
    t.match(sent.get('current'), /apparent_temperature/);
    t.match(sent.get('current'), /relative_humidity_2m/);
    t.match(sent.get('current'), /wind_direction_10m/);
    t.match(sent.get('daily'), /precipitation_probability_max/);
    t.equal(sent.get('temperature_unit'), null, 'metric is the API default');
    const body = first.json();
    t.match(body, {
      configured: true,
      observed_at: '2026-11-22T18:45:00+01:00',
      current: {
        temperature: 5.1,
        apparent_temperature: 2,
        humidity: 87,
        wind_speed: 15,
        wind_direction: 250,
        weather_code: 61,
        description: 'Slight rain',
        is_day: false,
      },
      today: { temperature_min: 2.1, temperature_max: 7.2, precipitation_probability: 80 },
      units: { system: 'metric', temperature: '°C', wind_speed: 'km/h' },
    });
    t.equal(body.daily.length, 7);
    t.match(body.daily[6], {
      date: '2026-11-28',
      description: 'Thunderstorm',
      precipitation_probability: 90,
    });
    t.equal(body.fetched_at, now().toISOString());
    t.notOk(body.stale);

    const agent = await ta.anon({ method: 'GET', url: '/api/weather' });
    t.equal(agent.statusCode, 401, 'nobody is refused');

    await read();
    minutes(14);
    await read();
    t.equal(meteo.forecasts(), 1, 'within 15 minutes the cache answers');
    const imperial = await read('?units=imperial');
    t.match(imperial.json(), {
      units: { system: 'imperial', temperature: '°F' },
      current: { temperature: 41.2 },
    });
    t.equal(meteo.forecasts(), 2, 'other units are another cache entry');
    const imperialSent = new URL(meteo.requests[1].url, 'http://x').searchParams;
    t.equal(imperialSent.get('temperature_unit'), 'fahrenheit');
    t.equal(imperialSent.get('wind_speed_unit'), 'mph');
    const elsewhere = await read('?latitude=48.85&longitude=2.35');
    t.equal(elsewhere.json().latitude, 48.85);
    t.equal(meteo.forecasts(), 3, 'a card’s own place is another entry');
    await read('?latitude=48.85&longitude=2.35');
    t.equal(meteo.forecasts(), 3);
    minutes(2);
    await read();
    t.equal(meteo.forecasts(), 4, 'after 15 minutes the place is fetched again');

    // Bad input is the hub's own 400 and never reaches Open-Meteo.
    for (const query of [
      '?latitude=200&longitude=0',
      '?latitude=10&longitude=-181',
      '?latitude=abc&longitude=1',
    ]) {
      const bad = await read(query);
      t.equal(bad.statusCode, 400, query);
    }
    const half = await read('?latitude=10');
    t.equal(half.statusCode, 400);
    t.equal(half.json().code, 'WEATHER_PLACE_INVALID');
    t.equal(meteo.forecasts(), 4, 'refused input never reached the upstream');

    // The `weather` setting moves the default place at run time.
    const setting = await ta.asOwner({
      method: 'PUT',
      url: '/api/settings/weather',
      payload: { value: { latitude: 40.71, longitude: -74.01, label: 'New York', units: 'imperial' } },
    });
    t.equal(setting.statusCode, 200, setting.body);
    const refused = await ta.asOwner({
      method: 'PUT',
      url: '/api/settings/weather',
      payload: { value: { latitude: 200 } },
    });
    t.equal(refused.statusCode, 400);
    t.match(refused.json(), { code: 'SETTING_INVALID', message: /latitude/ });
    minutes(1);
    const moved = await read();
    t.match(moved.json(), { latitude: 40.71, label: 'New York', units: { system: 'imperial' } });
  },
);

t.test(
  'failures: 502 with the upstream status when nothing is cached, the cached value marked stale otherwise',
  async (t) => {
    const meteo = await fakeOpenMeteo(t);
    const ta = await testApp(t, {
      env: {
        WEATHER_URL: meteo.url,
        WEATHER_LATITUDE: '52.52',
        WEATHER_LONGITUDE: '13.41',
        UPSTREAM_TIMEOUT_MS: '300',
      },
      now,
    });
    const read = (query = '') => ta.asOwner({ method: 'GET', url: `/api/weather${query}` });

    meteo.mode = 'error';
    const failed = await read();
    t.equal(failed.statusCode, 502, failed.body);
    t.match(failed.json(), {
      code: 'WEATHER_UPSTREAM_FAILED',
      message: /HTTP 400 Cannot initialize WeatherVariable/,
      upstream: { status: 400 },
    });

    meteo.mode = 'ok';
    const good = await read();
    t.equal(good.statusCode, 200);
    minutes(16);
    meteo.mode = 'error';
    const stale = await read();
    t.equal(stale.statusCode, 200);
    t.match(stale.json(), { configured: true, stale: true, age_seconds: 960, current: { temperature: 5.1 } });

    meteo.mode = 'hang';
    minutes(1);
    const slow = await read('?latitude=1&longitude=1');
    t.equal(slow.statusCode, 502);
    t.match(slow.json(), {
      code: 'WEATHER_UPSTREAM_FAILED',
      message: /no answer within 300 ms/,
      upstream: { status: null },
    });
    const staleAgain = await read();
    t.match(
      staleAgain.json(),
      { stale: true, age_seconds: 1020 },
      'a hanging upstream falls back to the cache too',
    );
  },
);

t.test('an unreachable or hanging Open-Meteo is a 502 naming what happened', async (t) => {
  const port = await closedPort();
  const refused = await testApp(t, {
    env: { WEATHER_URL: `http://127.0.0.1:${port}`, WEATHER_LATITUDE: '1', WEATHER_LONGITUDE: '1' },
    now,
  });
  const down = await refused.asOwner({ method: 'GET', url: '/api/weather' });
  t.equal(down.statusCode, 502);
  t.match(down.json(), { code: 'WEATHER_UPSTREAM_FAILED', message: /connection refused/ });

  const hanging = await hangingUpstream(t);
  const slowApp = await testApp(t, {
    env: {
      WEATHER_URL: hanging.url,
      WEATHER_LATITUDE: '1',
      WEATHER_LONGITUDE: '1',
      UPSTREAM_TIMEOUT_MS: '200',
    },
    now,
  });
  const started = Date.now();
  const slow = await slowApp.asOwner({ method: 'GET', url: '/api/weather' });
  t.equal(slow.statusCode, 502);
  t.match(slow.json().message, /no answer within 200 ms/);
  t.ok(Date.now() - started < 5000, 'the request did not wait on the upstream beyond its time limit');
});
