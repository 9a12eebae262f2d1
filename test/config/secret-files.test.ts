// Every secret variable also has a `_FILE` form naming a file that holds the value, as container images pass
// secrets (Docker and Kubernetes secrets mounted under /run/secrets). Real files in a temporary directory, read by
// the real loader.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { type Config, ConfigError, loadConfig } from '../../config/index.ts';

const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-secrets-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

async function secretFile(name: string, content: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, content, { mode: 0o600 });
  return file;
}

// Each secret, the settings that make the hub read it, the value its file holds and where the value lands.
const secrets: [string, Record<string, string>, string, (config: Config) => unknown][] = [
  ['OWNER_TOKEN', {}, 'o'.repeat(32), (c) => c.access.ownerToken],
  ['DATABASE_URL', {}, 'postgres://hub:pa55@db.lan:5432/hub', (c) => c.database.url],
  ['WEBHOOK_SECRET', {}, 'webhook-secret', (c) => c.capture.webhookSecret],
  [
    'LINKDING_TOKEN',
    { LINKDING_URL: 'http://127.0.0.1:9090' },
    'linkding-token',
    (c) => c.capture.linkding?.token,
  ],
  [
    'STT_API_KEY',
    { STT_PROVIDER: 'openai', STT_URL: 'http://127.0.0.1:8000' },
    'stt-key',
    (c) => (c.voice.stt?.provider === 'openai' ? c.voice.stt.apiKey : undefined),
  ],
  [
    'ASSISTANT_API_KEY',
    { ASSISTANT_RUNNER: 'openai', ASSISTANT_OPENAI_URL: 'http://127.0.0.1:11434/v1', ASSISTANT_MODEL: 'm' },
    'assistant-key',
    (c) => (c.assistant.runner?.runner === 'openai' ? c.assistant.runner.apiKey : undefined),
  ],
  ['ALERT_TOKEN', {}, 'tk_alerts', (c) => c.alerts.token],
  ['METRICS_TOKEN', {}, 'metrics-token', (c) => c.health.metricsToken],
  [
    'PVE_TOKEN',
    { PVE_URL: 'https://127.0.0.1:8006' },
    'monitor@pve!hub=0b7c3a1e-5d2f-4e8a-9c6b-1f2e3d4c5b6a',
    (c) => c.dashboard.pve.token,
  ],
  ['SHLINK_API_KEY', { SHLINK_URL: 'http://127.0.0.1:8081' }, 'shlink-key', (c) => c.dashboard.shlink.apiKey],
];

t.test('each secret is read from the file its _FILE variable names', async (t) => {
  for (const [name, settings, value, field] of secrets) {
    const file = await secretFile(name, `${value}\n`);
    const config = loadConfig({ DATA_DIR: dir, ...settings, [`${name}_FILE`]: file });
    t.equal(field(config), value, `${name}_FILE: the content without its trailing newline`);
    t.equal(field(loadConfig({ DATA_DIR: dir, ...settings, [name]: value })), value, `${name} still works`);
  }
});

t.test('a value from a file is checked as the variable is', async (t) => {
  const file = await secretFile('short-owner-token', 'too-short-secret\n');
  const error = t.throws(() => loadConfig({ DATA_DIR: dir, OWNER_TOKEN_FILE: file }), ConfigError);
  t.match(error, { variable: 'OWNER_TOKEN', message: /^OWNER_TOKEN must be at least 24 characters/ });
  t.notMatch((error as Error).message, 'too-short-secret', 'the content is never shown');
});

t.test('setting both the variable and its _FILE stops the start, naming both', async (t) => {
  for (const [name, settings, value] of secrets) {
    const file = await secretFile(`${name}-both`, value);
    const error = t.throws(
      () => loadConfig({ DATA_DIR: dir, ...settings, [name]: value, [`${name}_FILE`]: file }),
      ConfigError,
    );
    t.match(error, {
      variable: `${name}_FILE`,
      message: new RegExp(`^${name}_FILE and ${name} are both set`),
    });
  }
});

t.test('an unreadable or empty file stops the start, naming the variable and the path', async (t) => {
  const missing = path.join(dir, 'no-such-secret');
  const folder = path.join(dir, 'a-folder');
  await mkdir(folder);
  const empty = await secretFile('empty', '\n');
  const cases: [string, string, RegExp][] = [
    [missing, 'cannot be read', /ENOENT/],
    [folder, 'cannot be read', /EISDIR/],
    [empty, 'an empty file', /empty/],
  ];
  for (const [file, problem, detail] of cases) {
    const error = t.throws(() => loadConfig({ DATA_DIR: dir, WEBHOOK_SECRET_FILE: file }), ConfigError);
    t.match(error, { variable: 'WEBHOOK_SECRET_FILE', message: /^WEBHOOK_SECRET_FILE names / });
    t.match((error as Error).message, problem);
    t.match((error as Error).message, `"${file}`, 'the path is named');
    t.match((error as Error).message, detail);
  }
});

t.test('a _FILE variable left empty counts as unset', async (t) => {
  t.equal(loadConfig({ DATA_DIR: dir, WEBHOOK_SECRET_FILE: ' ' }).capture.webhookSecret, null);
  t.equal(
    loadConfig({ DATA_DIR: dir, WEBHOOK_SECRET_FILE: '', WEBHOOK_SECRET: 's' }).capture.webhookSecret,
    's',
  );
});
