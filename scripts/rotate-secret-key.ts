// `npm run rotate-secret-key`: re-seals every stored integration secret under a new key, in one transaction, while
// the hub is stopped (it holds the old key in memory; the data directory's lock makes sure it is not running).
// - Key in DATA_DIR/secret.key: a new key is made and written beside it (secret.key.new), the secrets are re-sealed,
//   then the new file replaces the old one.
// - Key in HUB_SECRET_KEY: give the new one in NEW_HUB_SECRET_KEY; after the rotation set HUB_SECRET_KEY to it.
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Config, loadConfigOrExit } from '../config/index.ts';
import { describeKeySource, resealSecrets, secretKeyFile } from '../domains/integrations/keyring.ts';
import { createSql, endSql } from '../lib/db.ts';
import { startEmbeddedPostgres, stopEmbeddedPostgres } from '../lib/embedded-postgres.ts';
import { lockDataDir } from '../lib/instance-lock.ts';
import { migrate } from '../lib/migrate.ts';
import { loadSecretKey, newSecretKey, parseSecretKey } from '../lib/secrets.ts';
import { hub } from '../modules.ts';

function fail(message: string): never {
  console.error(`rotate-secret-key: ${message}`);
  process.exit(1);
}

async function rotate(config: Config): Promise<void> {
  const file = secretKeyFile(config.server);
  const current = await loadSecretKey({ fromEnvironment: config.server.secretKey, file, create: false });
  if (!current) fail(`there is no key to rotate: HUB_SECRET_KEY is unset and ${file} is missing`);
  const given = process.env.NEW_HUB_SECRET_KEY?.trim();
  const next = given ? parseSecretKey(given) : current.source === 'HUB_SECRET_KEY' ? null : newSecretKey();
  if (!next) {
    fail(
      given
        ? 'NEW_HUB_SECRET_KEY must be 32 bytes as base64 or hex (make one: openssl rand -base64 32)'
        : 'the key comes from HUB_SECRET_KEY: give the new one in NEW_HUB_SECRET_KEY (openssl rand -base64 32)',
    );
  }

  const embedded = config.database.url
    ? null
    : {
        dir: path.join(config.server.dataDir, 'postgres'),
        runtimeDir: path.join(config.server.dataDir, 'runtime'),
        log: (message: string) => console.log(`[database] ${message}`),
      };
  const url = embedded
    ? (await startEmbeddedPostgres({ ...embedded, appRole: 'hub', appDatabase: 'hub' })).url
    : (config.database.url as string);
  const sql = createSql(url, { warn: (_object, message) => console.warn(`[database] ${message}`) });
  // The new key file exists before any secret is sealed under it, so no outcome leaves secrets without their key.
  const pending = `${file}.new`;
  try {
    await migrate(sql);
    if (current.source !== 'HUB_SECRET_KEY') {
      await writeFile(pending, `${next.toString('base64')}\n`, { mode: 0o600 });
    }
    const count = await resealSecrets(sql, current.key, next, hub.sealed);
    if (current.source === 'HUB_SECRET_KEY') {
      console.log(
        `re-encrypted ${count} secret(s): now set HUB_SECRET_KEY to the value of NEW_HUB_SECRET_KEY`,
      );
    } else {
      await rename(pending, file);
      console.log(`re-encrypted ${count} secret(s) under a new key in ${file}: back it up with the data`);
    }
  } catch (error) {
    await rm(pending, { force: true });
    console.error(
      `rotate-secret-key: ${(error as Error).message} (the key from ${describeKeySource(current.source)} is still ` +
        'the one in use)',
    );
    process.exitCode = 1;
  } finally {
    await endSql(sql).catch(() => undefined);
    if (embedded) await stopEmbeddedPostgres(embedded);
  }
}

const config = loadConfigOrExit();
let lock: ReturnType<typeof lockDataDir>;
try {
  lock = lockDataDir(config.server.dataDir);
} catch (error) {
  fail(`${(error as Error).message}: stop the hub first (it holds the current key in memory)`);
}
try {
  await rotate(config);
} finally {
  lock.release();
}
