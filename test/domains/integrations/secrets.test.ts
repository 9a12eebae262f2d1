// Secrets at rest: AES-256-GCM with the kind and field bound to each value, the key from HUB_SECRET_KEY or
// DATA_DIR/secret.key (made 0600 at first start), a clear start-up error when the stored secrets cannot be opened,
// rotation by `npm run rotate-secret-key` in one transaction (run as the real program), and the logger's redaction.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { loadConfig } from '../../../config/index.ts';
import { checkSecretKey, SecretKeyError, secretKeyFile } from '../../../domains/integrations/keyring.ts';
import { saveIntegrationRow } from '../../../domains/integrations/store.ts';
import { childEnvironment, runCommand } from '../../../lib/command.ts';
import {
  loadSecretKey,
  newSecretKey,
  openSecret,
  parseSecretKey,
  SecretUnreadableError,
  sealSecret,
} from '../../../lib/secrets.ts';
import { hub } from '../../../modules.ts';
import { anotherProcess, testApp, testDatabase } from '../../helpers/app.ts';
import { freePort, processes } from '../../helpers/process.ts';

const plaintext = 'shlink-api-key-a5d0c8a4-37b4-4c0c-9f0e';

async function tempDir(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-secrets-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a sealed value opens only with its key and in its own place', async (t) => {
  const key = newSecretKey();
  const sealed = sealSecret(key, { kind: 'shlink', field: 'api_key' }, plaintext);
  t.match(sealed, /^v1:[A-Za-z0-9+/]+=*$/);
  t.notOk(sealed.includes(plaintext));
  t.not(sealSecret(key, { kind: 'shlink', field: 'api_key' }, plaintext), sealed, 'a fresh nonce each time');
  t.equal(openSecret(key, { kind: 'shlink', field: 'api_key' }, sealed), plaintext);
  t.throws(() => openSecret(key, { kind: 'linkding', field: 'token' }, sealed), SecretUnreadableError);
  t.throws(() => openSecret(key, { kind: 'shlink', field: 'token' }, sealed), SecretUnreadableError);
  t.throws(
    () => openSecret(newSecretKey(), { kind: 'shlink', field: 'api_key' }, sealed),
    SecretUnreadableError,
  );
  const flipped = Buffer.from(sealed.slice(3), 'base64');
  flipped[20] ^= 1;
  t.throws(
    () => openSecret(key, { kind: 'shlink', field: 'api_key' }, `v1:${flipped.toString('base64')}`),
    SecretUnreadableError,
    'a changed byte is refused',
  );
});

t.test('HUB_SECRET_KEY: 32 bytes as base64 or hex, anything else stops the start naming it', async (t) => {
  const key = randomBytes(32);
  t.same(parseSecretKey(key.toString('base64')), key);
  t.same(parseSecretKey(key.toString('base64url')), key);
  t.same(parseSecretKey(key.toString('hex')), key);
  t.equal(parseSecretKey(randomBytes(16).toString('base64')), null);
  t.same(loadConfig({ HUB_SECRET_KEY: key.toString('hex') }).server.secretKey, key);
  t.throws(() => loadConfig({ HUB_SECRET_KEY: 'too-short' }), /^HUB_SECRET_KEY must be 32 bytes/);
});

t.test('without HUB_SECRET_KEY a key is made at first start in DATA_DIR/secret.key, mode 0600', async (t) => {
  const db = await testDatabase(t);
  const dataDir = await tempDir(t);
  const made = await checkSecretKey(db.sql, { dataDir, secretKey: null }, hub.sealed);
  t.equal(made.source, path.join(dataDir, 'secret.key'));
  t.ok(made.created);
  t.equal((await stat(made.source)).mode & 0o777, 0o600);
  const again = await checkSecretKey(db.sql, { dataDir, secretKey: null }, hub.sealed);
  t.same(again.key, made.key, 'the next start reads the same key');
  t.notOk(again.created);

  const fromEnvironment = await checkSecretKey(
    db.sql,
    {
      dataDir: await tempDir(t),
      secretKey: newSecretKey(),
    },
    hub.sealed,
  );
  t.equal(fromEnvironment.source, 'HUB_SECRET_KEY');
});

t.test(
  'stored secrets with a missing or wrong key: a start-up error naming where the key comes from',
  async (t) => {
    const db = await testDatabase(t);
    const dataDir = await tempDir(t);
    const { key } = await checkSecretKey(db.sql, { dataDir, secretKey: null }, hub.sealed);
    await saveIntegrationRow(db.sql, {
      kind: 'shlink',
      fields: { url: 'http://127.0.0.1:9' },
      secrets: { api_key: sealSecret(key, { kind: 'shlink', field: 'api_key' }, plaintext) },
      last_test: null,
    });
    t.ok(await checkSecretKey(db.sql, { dataDir, secretKey: null }, hub.sealed), 'the right key starts');

    const emptyDir = await tempDir(t);
    const missing = await checkSecretKey(db.sql, { dataDir: emptyDir, secretKey: null }, hub.sealed).catch(
      (e) => e,
    );
    t.type(missing, SecretKeyError);
    t.match(missing.message, `${path.join(emptyDir, 'secret.key')} is missing`);
    t.match(missing.message, /shlink\.api_key/);
    await t.rejects(stat(path.join(emptyDir, 'secret.key')), 'no new key is made over stored secrets');

    const wrongEnv = await checkSecretKey(db.sql, { dataDir, secretKey: newSecretKey() }, hub.sealed).catch(
      (e) => e,
    );
    t.type(wrongEnv, SecretKeyError);
    t.match(wrongEnv.message, /from HUB_SECRET_KEY cannot decrypt 1 stored/);

    await writeFile(secretKeyFile({ dataDir }), `${newSecretKey().toString('base64')}\n`);
    const wrongFile = await checkSecretKey(db.sql, { dataDir, secretKey: null }, hub.sealed).catch((e) => e);
    t.match(wrongFile.message, `from the key file ${path.join(dataDir, 'secret.key')} cannot decrypt`);
    t.notOk(wrongFile.message.includes(plaintext));
  },
);

t.test('the service itself refuses to start without the key of its stored secrets', async (t) => {
  const db = await testDatabase(t);
  const procs = processes(t);
  const dataDir = await procs.dataDir();
  const key = newSecretKey();
  await saveIntegrationRow(db.sql, {
    kind: 'shlink',
    fields: { url: 'http://127.0.0.1:9' },
    secrets: { api_key: sealSecret(key, { kind: 'shlink', field: 'api_key' }, plaintext) },
    last_test: null,
  });
  const child = procs.spawn('main.ts', {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
  });
  const exit = await child.exited;
  t.equal(exit.code, 1, child.output());
  t.match(child.stderr(), `start-up failed: 1 stored integration secret(s) (shlink.api_key) need the key`);
  t.match(child.stderr(), path.join(dataDir, 'secret.key'));
  t.notOk(child.output().includes(plaintext));
});

t.test('npm run rotate-secret-key re-seals every secret under a new key in one transaction', async (t) => {
  const db = await testDatabase(t);
  const procs = processes(t);
  const dataDir = await procs.dataDir();
  await mkdir(dataDir, { recursive: true });
  const { key } = await checkSecretKey(db.sql, { dataDir, secretKey: null }, hub.sealed);
  const values = { shlink: plaintext, linkding: 'linkding-token-0123456789' };
  const place = { shlink: 'api_key', linkding: 'token' } as const;
  for (const kind of ['shlink', 'linkding'] as const) {
    await saveIntegrationRow(db.sql, {
      kind,
      fields: { url: 'http://127.0.0.1:9' },
      secrets: { [place[kind]]: sealSecret(key, { kind, field: place[kind] }, values[kind]) },
      last_test: null,
    });
  }
  const before = await db.sql<{ kind: string; secrets: Record<string, string> }[]>`
    select kind, secrets from integrations order by kind`;

  const rotation = procs.spawn('scripts/rotate-secret-key.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir });
  const exit = await rotation.exited;
  t.equal(exit.code, 0, rotation.output());
  t.match(rotation.stdout(), /re-encrypted 2 secret\(s\) under a new key/);
  const file = path.join(dataDir, 'secret.key');
  const next = parseSecretKey(await readFile(file, 'utf8')) as Buffer;
  t.notSame(next, key);
  t.equal((await stat(file)).mode & 0o777, 0o600);
  await t.rejects(stat(`${file}.new`), 'the pending key file is gone');
  const after = await db.sql<{ kind: string; secrets: Record<string, string> }[]>`
    select kind, secrets from integrations order by kind`;
  for (const [i, row] of after.entries()) {
    const kind = row.kind as 'shlink' | 'linkding';
    const sealed = row.secrets[place[kind]];
    t.not(sealed, before[i].secrets[place[kind]]);
    t.equal(openSecret(next, { kind, field: place[kind] }, sealed), values[kind]);
    t.throws(() => openSecret(key, { kind, field: place[kind] }, sealed), SecretUnreadableError);
  }

  // One value the key cannot open (moved from another field): nothing changes, the key file stays.
  await db.sql`
    update integrations set secrets = jsonb_build_object('token', secrets->'api_key') where kind = 'shlink'`;
  const moved = await db.sql<{ kind: string; secrets: Record<string, string> }[]>`
    select kind, secrets from integrations order by kind`;
  const failed = procs.spawn('scripts/rotate-secret-key.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir });
  t.equal((await failed.exited).code, 1);
  t.match(failed.stderr(), /cannot decrypt shlink\.token: nothing was changed/);
  t.same(
    await db.sql`select kind, secrets from integrations order by kind`,
    moved,
    'every row as it was: the transaction rolled back',
  );
  t.same(parseSecretKey(await readFile(file, 'utf8')), next, 'the key file is unchanged');
  await t.rejects(stat(`${file}.new`));

  // With the key in HUB_SECRET_KEY the new one must be given, and is used.
  const fromEnvironment = procs.spawn('scripts/rotate-secret-key.ts', {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    HUB_SECRET_KEY: next.toString('base64'),
  });
  t.equal((await fromEnvironment.exited).code, 1);
  t.match(fromEnvironment.stderr(), /give the new one in NEW_HUB_SECRET_KEY/);
});

t.test('the log never carries a secret: credentials and secret fields are censored', async (t) => {
  const ta = await testApp(t);
  let log = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      log += chunk.toString();
      done();
    },
  });
  const app = await anotherProcess(t, ta, { logger: { level: 'trace', stream } });
  app.log.info({ integration: { kind: 'shlink', api_key: plaintext } }, 'saving');
  app.log.info({ token_secret: plaintext }, 'saving');
  app.log.info({ integration: { kind: 'docker', client_key: plaintext } }, 'saving');
  await app.inject({
    method: 'PUT',
    url: '/api/integrations/shlink?test=false',
    headers: { authorization: 'Bearer owner-test-token-0123456789abcdef', 'x-api-key': plaintext },
    payload: { url: 'http://127.0.0.1:9', api_key: plaintext },
  });
  t.match(log, /"api_key":"\[redacted\]"/);
  t.match(log, /"client_key":"\[redacted\]"/);
  t.notOk(log.includes(plaintext), 'no secret in the log');
  t.notOk(log.includes('owner-test-token'), 'nor the owner token');
});

t.test("a child process's environment carries neither the key nor a stored secret", async (t) => {
  const key = newSecretKey().toString('base64');
  const saved = process.env.HUB_SECRET_KEY;
  process.env.HUB_SECRET_KEY = key;
  t.teardown(() => {
    if (saved === undefined) delete process.env.HUB_SECRET_KEY;
    else process.env.HUB_SECRET_KEY = saved;
  });
  t.notOk('HUB_SECRET_KEY' in childEnvironment());
  const result = await runCommand(
    [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.env))'],
    { timeoutMs: 10_000, maxOutputBytes: 1024 * 1024 },
  );
  t.notOk(result.stdout.includes(key));
  t.notOk('HUB_SECRET_KEY' in JSON.parse(result.stdout));
});

t.test('a key file that is not a key is refused, never replaced', async (t) => {
  const dir = await tempDir(t);
  const file = path.join(dir, 'secret.key');
  await writeFile(file, 'not a key\n');
  await t.rejects(
    loadSecretKey({ fromEnvironment: null, file, create: true }),
    /does not hold a 32-byte key/,
  );
  t.equal(await readFile(file, 'utf8'), 'not a key\n');
});
