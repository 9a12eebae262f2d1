// The key that seals the integrations' secrets and every other domain's (a module's `sealed` store: the health
// checks', the alert targets', the downstream MCP servers', the custom cards'): HUB_SECRET_KEY, else
// DATA_DIR/secret.key (made at first start, mode 0600). Checked at start against every stored secret, so a lost or
// wrong key stops the start with a message naming where the key came from instead of failing later, card by card.
// Rotation re-seals every secret in one transaction.
import path from 'node:path';
import type { ServerConfig } from '../../config/server.ts';
import {
  loadSecretKey,
  openSecret,
  type SecretKey,
  type SecretPlace,
  sealSecret,
} from '../../lib/secrets.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { replaceSecrets, sealedSecrets } from './store.ts';

type KeyConfig = Pick<ServerConfig, 'dataDir' | 'secretKey'>;

export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretKeyError';
  }
}

export function secretKeyFile(config: Pick<ServerConfig, 'dataDir'>): string {
  return path.join(config.dataDir, 'secret.key');
}

/** "HUB_SECRET_KEY" or "the key file /data/secret.key". */
export function describeKeySource(source: string): string {
  return source === 'HUB_SECRET_KEY' ? 'HUB_SECRET_KEY' : `the key file ${source}`;
}

// One load per configuration (a process has one; tests build several apps, each with its own data directory).
const loaded = new WeakMap<KeyConfig, Promise<SecretKey>>();

/** The key of this configuration, loaded once and made on first use when there is none yet. */
export function secretKeyOf(config: KeyConfig): Promise<SecretKey> {
  let key = loaded.get(config);
  if (!key) {
    key = loadSecretKey({
      fromEnvironment: config.secretKey,
      file: secretKeyFile(config),
      create: true,
    }).then((found) => found as SecretKey);
    loaded.set(config, key);
    key.catch(() => loaded.delete(config));
  }
  return key;
}

/**
 * Seals a secret another domain keeps (a health check's password) under the hub's key, like the integrations'
 * own: AES-256-GCM with its place as associated data. The place's kind must not be an integration kind.
 */
export async function sealHubSecret(config: KeyConfig, place: SecretPlace, value: string): Promise<string> {
  const { key } = await secretKeyOf(config);
  return sealSecret(key, place, value);
}

/** Opens what sealHubSecret sealed; a value from another place or under another key throws SecretUnreadableError. */
export async function openHubSecret(config: KeyConfig, place: SecretPlace, sealed: string): Promise<string> {
  const { key } = await secretKeyOf(config);
  return openSecret(key, place, sealed);
}

/** A value sealed under the hub's key, with the place it was sealed for. */
export interface SealedValue extends SecretPlace {
  sealed: string;
}

/** Seals a value again: opens it with the old key and seals it for the same place with the new one. */
export type Reseal = (place: SecretPlace, sealed: string) => string;

/**
 * Where a domain keeps values sealed under the hub's key (its module's `sealed`): the key check at start reads them
 * all, and a key rotation seals them all again, in one transaction.
 */
export interface SealedStore {
  /** Every value stored, with its place; with `lock`, their rows stay locked until the transaction ends. */
  values(sql: Db, options: { lock: boolean }): Promise<SealedValue[]>;
  /** Seals every stored value again with `reseal`, in the caller's transaction; returns how many. */
  reseal(sql: Db, reseal: Reseal): Promise<number>;
}

/**
 * A store of rows that each hold their sealed values in a record by name (a field, a header): `rows` reads them
 * (locked with `lock`), `record` is a row's record, `placeOf` a value's place and `replace` writes a row's record.
 */
export function recordStore<Row>(of: {
  rows: (sql: Db, options: { lock: boolean }) => Promise<Row[]>;
  record: (row: Row) => Record<string, string>;
  placeOf: (row: Row, name: string) => SecretPlace;
  replace: (sql: Db, row: Row, record: Record<string, string>) => Promise<void>;
}): SealedStore {
  return {
    async values(sql, options) {
      return (await of.rows(sql, options)).flatMap((row) =>
        Object.entries(of.record(row)).map(([name, sealed]) => ({ ...of.placeOf(row, name), sealed })),
      );
    },
    async reseal(sql, reseal) {
      let count = 0;
      for (const row of await of.rows(sql, { lock: true })) {
        const record = Object.entries(of.record(row));
        await of.replace(
          sql,
          row,
          Object.fromEntries(record.map(([name, sealed]) => [name, reseal(of.placeOf(row, name), sealed)])),
        );
        count += record.length;
      }
      return count;
    },
  };
}

/** The integrations' own secrets: a row per kind, each field sealed for its kind and field. */
export const integrationSecrets = recordStore({
  rows: sealedSecrets,
  record: (row) => row.secrets,
  placeOf: (row, field) => ({ kind: row.kind, field }),
  replace: (sql, row, secrets) => replaceSecrets(sql, row.kind, secrets),
});

/** Every value sealed under the hub's key, in the stores given (the modules'). */
async function storedValues(
  sql: Db,
  stores: readonly SealedStore[],
  options: { lock: boolean },
): Promise<SealedValue[]> {
  const values: SealedValue[] = [];
  for (const store of stores) values.push(...(await store.values(sql, options)));
  return values;
}

function unreadable(key: Buffer, stored: SealedValue[]): SealedValue[] {
  return stored.filter((place) => {
    try {
      openSecret(key, place, place.sealed);
      return false;
    } catch {
      return true;
    }
  });
}

const named = (list: SealedValue[]) => list.map((place) => `${place.kind}.${place.field}`).join(', ');

/**
 * At start: the key (made when nothing is stored yet), checked against every secret the stores hold (the hub's:
 * `hub.sealed`). A missing key with secrets stored, or a key that opens none of some of them, is a SecretKeyError
 * naming the key's source.
 */
export async function checkSecretKey(
  sql: Db,
  config: KeyConfig,
  stores: readonly SealedStore[],
): Promise<SecretKey> {
  const stored = await storedValues(sql, stores, { lock: false });
  const file = secretKeyFile(config);
  const key = await loadSecretKey({
    fromEnvironment: config.secretKey,
    file,
    create: stored.length === 0,
  });
  if (!key) {
    throw new SecretKeyError(
      `${stored.length} stored integration secret(s) (${named(stored)}) need the key they were sealed with, but ` +
        `HUB_SECRET_KEY is unset and the key file ${file} is missing: restore ${file} from your backup, or set ` +
        'HUB_SECRET_KEY to that key',
    );
  }
  const refused = unreadable(key.key, stored);
  if (refused.length > 0) {
    throw new SecretKeyError(
      `the secret key from ${describeKeySource(key.source)} cannot decrypt ${refused.length} stored integration ` +
        `secret(s) (${named(refused)}): it is not the key they were sealed with. Restore the right key ` +
        `(${key.source === 'HUB_SECRET_KEY' ? 'in HUB_SECRET_KEY' : `to ${file}`}), or remove those integrations`,
    );
  }
  loaded.set(config, Promise.resolve(key));
  return key;
}

/**
 * Re-seals every secret the stores hold under `next`, in one transaction with their rows locked: all of them or,
 * when one cannot be opened with `current`, none. Returns how many were re-sealed.
 */
export async function resealSecrets(
  sql: Sql,
  current: Buffer,
  next: Buffer,
  stores: readonly SealedStore[],
): Promise<number> {
  return sql.begin(async (tx) => {
    const refused = unreadable(current, await storedValues(tx, stores, { lock: true }));
    if (refused.length > 0) {
      throw new SecretKeyError(`the current key cannot decrypt ${named(refused)}: nothing was changed`);
    }
    const reseal: Reseal = (place, sealed) => sealSecret(next, place, openSecret(current, place, sealed));
    let count = 0;
    for (const store of stores) count += await store.reseal(tx, reseal);
    return count;
  }) as Promise<number>;
}
