import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { environment } from '../../config/env.ts';
import { ConfigError, loadConfig } from '../../config/index.ts';
import { describeDatabaseUrl } from '../../config/server.ts';

t.test('defaults', async (t) => {
  const config = loadConfig({ DATA_DIR: '/srv/hub' });
  t.match(config, {
    server: { port: 3000, host: '0.0.0.0', dataDir: '/srv/hub', logLevel: 'info' },
    database: { url: null, allowSuperuser: false },
    access: { ownerToken: null, proxy: null },
    jobs: { workerMode: 'in-process' },
    ingest: { allowPrivateFetch: false },
    voice: { clipsDir: '/srv/hub/voice-clips' },
  });
});

t.test('WORKER_MODE=off is an API-only process: it runs no jobs, as with separate', async (t) => {
  const config = loadConfig({ DATA_DIR: '/srv/hub', WORKER_MODE: 'off' });
  t.equal(config.jobs.workerMode, 'separate');
});

t.test('a .env file fills in what the environment leaves unset', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-env-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, '.env'), 'PORT=4100\nOPS_HUB_TEST_FROM_FILE=file\nPATH=/from/file\n');
  const env = environment(dir);
  t.equal(env.PORT ?? '', process.env.PORT ?? '4100');
  t.equal(env.OPS_HUB_TEST_FROM_FILE, 'file');
  t.equal(env.PATH, process.env.PATH, 'the real environment wins');
  t.equal(environment(os.tmpdir()).OPS_HUB_TEST_FROM_FILE, undefined, 'no .env, nothing added');
});

t.test('a bad value names its variable', async (t) => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ PORT: '0' }, 'PORT', /from 1 to 65535/],
    [{ PORT: '3000x' }, 'PORT', /"3000x"/],
    [{ DATABASE_URL: 'localhost:5432/hub' }, 'DATABASE_URL', /postgres:\/\//],
    [{ DATABASE_URL: 'http://db:5432/hub' }, 'DATABASE_URL', /"http:"/],
    [{ DATABASE_URL: 'postgres://db:5432' }, 'DATABASE_URL', /database/],
    [{ OWNER_EMAILS: 'me@example.com' }, 'ACCESS_TEAM_DOMAIN', /ACCESS_AUDIENCE/],
    [
      { ACCESS_TEAM_DOMAIN: 'team.example.com', ACCESS_AUDIENCE: 'aud', OWNER_EMAILS: 'nobody' },
      'OWNER_EMAILS',
      /email/,
    ],
    [
      { ACCESS_TEAM_DOMAIN: 'https://team', ACCESS_AUDIENCE: 'aud', OWNER_EMAILS: 'a@b.c' },
      'ACCESS_TEAM_DOMAIN',
      /host name/,
    ],
    [{ WORKER_MODE: 'both' }, 'WORKER_MODE', /in-process, separate, off/],
    [{ OWNER_TOKEN: 'x'.repeat(23) }, 'OWNER_TOKEN', /24 characters/],
    [{ DATABASE_ALLOW_SUPERUSER: 'maybe' }, 'DATABASE_ALLOW_SUPERUSER', /1\/true/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /info/],
    [{ VIDEO_OEMBED_URL: 'ftp://x' }, 'VIDEO_OEMBED_URL', /http/],
  ];
  for (const [env, variable, detail] of cases) {
    const error = t.throws(() => loadConfig({ DATA_DIR: '/srv/hub', ...env }), ConfigError, variable);
    t.match(error, { variable, message: new RegExp(`^${variable} `) });
    t.match((error as Error).message, detail);
  }
  t.equal(loadConfig({ OWNER_TOKEN: 'x'.repeat(24) }).access.ownerToken, 'x'.repeat(24));
  t.equal(loadConfig({ PORT: ' 8080 ' }).server.port, 8080, 'surrounding spaces are ignored');
});

t.test('the database URL is described without its password', async (t) => {
  t.equal(describeDatabaseUrl('postgres://hub:s3cret@db:5432/hub'), 'postgres://hub:***@db:5432/hub');
  t.equal(describeDatabaseUrl('postgres://hub@db/hub'), 'postgres://hub@db/hub');
  const withParameter = describeDatabaseUrl('postgres://db/hub?user=hub&password=s3cret&sslmode=require');
  t.notMatch(withParameter, 's3cret');
  t.match(withParameter, 'sslmode=require');
});

t.test("a schedule in the environment is checked by the job engine's cron parser", async (t) => {
  const at = (value: string) => loadConfig({ DATA_DIR: '/srv/hub', DEVICES_SCAN_SCHEDULE: value });
  t.equal(at('*/10 * * * *').devices.scanSchedule, '*/10 * * * *');
  t.equal(at('off').devices.scanSchedule, null);
  t.throws(() => at('*/10 * * *'), /DEVICES_SCAN_SCHEDULE is not a schedule: .* 5 fields/);
  t.throws(
    () => at('61 * * * *'),
    /DEVICES_SCAN_SCHEDULE is not a schedule: "61 \* \* \* \*" is not a valid cron/,
  );
});
