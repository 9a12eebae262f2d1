// The alert targets' secrets are sealed under the hub's secret key like the integrations': the start-up check opens
// them too (a missing or wrong key stops the start naming them), and `npm run rotate-secret-key` (run as the real
// program) re-seals them with the rest, in one transaction.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../../config/index.ts';
import { alertTargetPlace, createTarget, openTarget } from '../../../domains/alerts/targets.ts';
import { checkSecretKey, SecretKeyError } from '../../../domains/integrations/keyring.ts';
import { newSecretKey, openSecret, parseSecretKey, SecretUnreadableError } from '../../../lib/secrets.ts';
import { hub } from '../../../modules.ts';
import { ownerToken, testDatabase } from '../../helpers/app.ts';
import { processes } from '../../helpers/process.ts';

const token = 'tk_ntfy-access-token-0123456789';
const password = 'smtp-password-9876543210';

t.test('the start-up key check and the key rotation cover the alert targets', async (t) => {
  const db = await testDatabase(t);
  const procs = processes(t);
  const dataDir = await procs.dataDir();
  await mkdir(dataDir, { recursive: true });
  const configOf = (env: Record<string, string> = {}) =>
    loadConfig({ DATA_DIR: dataDir, OWNER_TOKEN: ownerToken, LOG_LEVEL: 'silent', ...env });
  const { key } = await checkSecretKey(db.sql, configOf().server, hub.sealed);
  const deps = { sql: db.sql, config: configOf() };
  const ntfy = await createTarget(deps, {
    kind: 'ntfy',
    name: 'Phone',
    fields: { url: 'http://127.0.0.1:9', topic: 'hub', token },
  });
  const email = await createTarget(deps, {
    kind: 'email',
    name: 'Mail',
    fields: {
      host: '127.0.0.1',
      port: 2525,
      tls: 'none',
      user: 'hub',
      password,
      from: 'hub@example.test',
      to: ['owner@example.test'],
    },
  });
  const sealed = async () =>
    Object.fromEntries(
      (
        await db.sql<{ id: string; secrets: Record<string, string> }[]>`select id, secrets from alert_targets`
      ).map((row) => [row.id, row.secrets]),
    );
  const before = await sealed();

  // Start-up: a wrong key names the targets' secrets it cannot open.
  const wrong = await checkSecretKey(db.sql, { dataDir, secretKey: newSecretKey() }, hub.sealed).catch(
    (error) => error,
  );
  t.type(wrong, SecretKeyError);
  t.match(wrong.message, /from HUB_SECRET_KEY cannot decrypt 2 stored/);
  t.match(wrong.message, `alert-target:${ntfy.id}.token`);
  t.match(wrong.message, `alert-target:${email.id}.password`);
  t.notOk(wrong.message.includes(token));
  const missing = await checkSecretKey(
    db.sql,
    {
      dataDir: path.join(dataDir, 'elsewhere'),
      secretKey: null,
    },
    hub.sealed,
  ).catch((error) => error);
  t.type(missing, SecretKeyError, 'no key where secrets are stored: a start-up error, not a new key');

  const rotation = procs.spawn('scripts/rotate-secret-key.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir });
  t.equal((await rotation.exited).code, 0, rotation.output());
  t.match(rotation.stdout(), /re-encrypted 2 secret\(s\) under a new key/);
  const next = parseSecretKey(await readFile(path.join(dataDir, 'secret.key'), 'utf8')) as Buffer;
  const after = await sealed();
  t.not(after[ntfy.id].token, before[ntfy.id].token, 're-sealed');
  t.equal(openSecret(next, alertTargetPlace(ntfy.id, 'token'), after[ntfy.id].token), token);
  t.equal(openSecret(next, alertTargetPlace(email.id, 'password'), after[email.id].password), password);
  t.throws(
    () => openSecret(key, alertTargetPlace(ntfy.id, 'token'), after[ntfy.id].token),
    SecretUnreadableError,
  );

  // The hub started with the new key opens them for sending.
  const restarted = { sql: db.sql, config: configOf() };
  t.ok(
    await checkSecretKey(db.sql, restarted.config.server, hub.sealed),
    'the new key passes the start-up check',
  );
  t.match(await openTarget(restarted, ntfy.id), { kind: 'ntfy', fields: { token } });

  // A value moved to another target's place: the rotation changes nothing.
  await db.sql`
    update alert_targets set secrets = jsonb_build_object('token', ${after[email.id].password}::text)
    where id = ${ntfy.id}`;
  const moved = await sealed();
  const failed = procs.spawn('scripts/rotate-secret-key.ts', { DATABASE_URL: db.url, DATA_DIR: dataDir });
  t.equal((await failed.exited).code, 1);
  t.match(failed.stderr(), `cannot decrypt alert-target:${ntfy.id}.token: nothing was changed`);
  t.same(await sealed(), moved, 'every target as it was');
});
