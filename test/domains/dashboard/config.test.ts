// The dashboard's environment variables: defaults, and a bad value naming its variable.
import t from 'tap';
import { ConfigError, loadConfig } from '../../../config/index.ts';

t.test('defaults', async (t) => {
  t.match(loadConfig({ DATA_DIR: '/srv/hub' }).dashboard, {
    upstreamTimeoutMs: 5000,
    weather: {
      url: 'https://api.open-meteo.com',
      latitude: null,
      longitude: null,
      units: 'metric',
      timezone: 'auto',
    },
    host: { proc: '/proc', sys: '/sys', mounts: ['/'], sampleSeconds: 5 },
    pve: { url: null, token: null, caFile: null, tlsInsecure: false, cacheSeconds: 30 },
    storageWatchPercent: 80,
    storageAttentionPercent: 90,
    shlink: { url: null, apiKey: null },
    heartbeatSeconds: 15,
  });
  const set = loadConfig({
    DATA_DIR: '/srv/hub',
    WEATHER_LATITUDE: '-33.87',
    WEATHER_LONGITUDE: '151.21',
    HOST_MOUNTS: '/, /srv ,/var/lib',
    PVE_URL: 'https://pve.lan:8006/',
    PVE_TOKEN: 'monitor@pve!dash=abc-123',
  }).dashboard;
  t.match(set, {
    weather: { latitude: -33.87, longitude: 151.21 },
    host: { mounts: ['/', '/srv', '/var/lib'] },
    pve: { url: 'https://pve.lan:8006', token: 'monitor@pve!dash=abc-123' },
  });
});

t.test('a bad value names its variable', async (t) => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ WEATHER_LATITUDE: '91', WEATHER_LONGITUDE: '0' }, 'WEATHER_LATITUDE', /-90 to 90/],
    [{ WEATHER_LATITUDE: '10' }, 'WEATHER_LONGITUDE', /both/],
    [{ WEATHER_UNITS: 'kelvin' }, 'WEATHER_UNITS', /metric, imperial/],
    [{ WEATHER_TIMEZONE: 'Mars/Base' }, 'WEATHER_TIMEZONE', /IANA/],
    [{ WEATHER_URL: 'ftp://x' }, 'WEATHER_URL', /http/],
    [{ HOST_MOUNTS: '/,srv' }, 'HOST_MOUNTS', /absolute/],
    [{ PVE_URL: 'https://pve:8006', PVE_TOKEN: 'secret-only' }, 'PVE_TOKEN', /USER@REALM!TOKENID=SECRET/],
    [{ PVE_URL: 'https://pve:8006' }, 'PVE_TOKEN', /PVE_URL and PVE_TOKEN/],
    [{ PVE_CA_FILE: '/nonexistent/ca.pem' }, 'PVE_CA_FILE', /does not exist/],
    [{ PVE_CACHE_SECONDS: '0' }, 'PVE_CACHE_SECONDS', /1 to 3600/],
    [{ PVE_TLS_INSECURE: 'sure' }, 'PVE_TLS_INSECURE', /1\/true/],
    [{ STORAGE_WATCH_PERCENT: '95' }, 'STORAGE_WATCH_PERCENT', /STORAGE_ATTENTION_PERCENT/],
    [{ STORAGE_ATTENTION_PERCENT: '101' }, 'STORAGE_ATTENTION_PERCENT', /1 to 100/],
    [{ SHLINK_API_KEY: 'k' }, 'SHLINK_URL', /SHLINK_URL and SHLINK_API_KEY/],
    [{ UPSTREAM_TIMEOUT_MS: '10' }, 'UPSTREAM_TIMEOUT_MS', /100 to/],
  ];
  for (const [env, variable, detail] of cases) {
    const error = t.throws(() => loadConfig({ DATA_DIR: '/srv/hub', ...env }), ConfigError, variable);
    t.match(error, { variable, message: new RegExp(`^${variable} `) });
    t.match((error as Error).message, detail);
  }
});
