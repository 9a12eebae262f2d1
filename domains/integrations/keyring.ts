// The key that seals the integrations' secrets (and the alert targets' and health checks' own): HUB_SECRET_KEY, else DATA_DIR/secret.key (made at first start, mode
// 0600). Checked at start against every stored secret, so a lost or wrong key stops the start with a message naming
// where the key came from instead of failing later, card by card. Rotation re-seals every secret in one transaction.
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
import { resealStoredHeaders, storedHeaderPlaces } from '../dashboard/custom-headers.ts';
import { headerPlace, replaceHeaders, sealedHeaders } from '../mcp-servers/sealed.ts';
import {
  replaceCheckHeaders,
  replaceCheckPassword,
  replaceSecrets,
  replaceTargetSecrets,
  sealedCheckHeaders,
  sealedCheckPasswords,
  sealedSecrets,
  sealedTargetSecrets,
} from './store.ts';

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

/** Where a health check's basic-auth password is sealed: bound to its service, so it opens for no other. */
export function checkPasswordPlace(serviceId: string): SecretPlace {
  return { kind: 'health', field: `basic_auth_password:${serviceId}` };
}

/** Where an alert target's secret is sealed: bound to its target and field, so it opens for no other. */
export function alertTargetPlace(targetId: string, field: string): SecretPlace {
  return { kind: `alert-target:${targetId}`, field };
}

/** Where a health check's request header value is sealed: bound to its service and the header's name. */
export function checkHeaderPlace(serviceId: string, name: string): SecretPlace {
  return { kind: 'health', field: `header:${serviceId}:${name}` };
}

interface SealedPlace {
  kind: string;
  field: string;
  sealed: string;
}

/**
 * Every value sealed under the hub's key: the integrations' secrets, the health checks' passwords and headers, the
 * alert targets' secrets, the downstream MCP servers' headers and the custom cards' headers.
 */
async function storedPlaces(sql: Db, options: { lock: boolean }): Promise<SealedPlace[]> {
  const rows = await sealedSecrets(sql, options);
  const passwords = await sealedCheckPasswords(sql, options);
  const headers = await sealedCheckHeaders(sql, options);
  const targets = await sealedTargetSecrets(sql, options);
  const mcpHeaders = await sealedHeaders(sql, options);
  return [
    ...mcpHeaders.flatMap((row) =>
      Object.entries(row.headers).map(([header, sealed]) => ({ ...headerPlace(row.id, header), sealed })),
    ),
    ...rows.flatMap((row) =>
      Object.entries(row.secrets).map(([field, sealed]) => ({ kind: row.kind, field, sealed })),
    ),
    ...passwords.map(({ id, sealed }) => ({ ...checkPasswordPlace(id), sealed })),
    ...targets.flatMap((target) =>
      Object.entries(target.secrets).map(([field, sealed]) => ({
        ...alertTargetPlace(target.id, field),
        sealed,
      })),
    ),
    ...(await storedHeaderPlaces(sql, options)),
    ...headers.flatMap(({ id, sealed }) =>
      Object.entries(sealed).map(([name, value]) => ({ ...checkHeaderPlace(id, name), sealed: value })),
    ),
  ];
}

function unreadable(key: Buffer, stored: SealedPlace[]): SealedPlace[] {
  return stored.filter((place) => {
    try {
      openSecret(key, place, place.sealed);
      return false;
    } catch {
      return true;
    }
  });
}

const named = (list: SealedPlace[]) => list.map((place) => `${place.kind}.${place.field}`).join(', ');

/**
 * At start: the key (made when nothing is stored yet), checked against every stored secret. A missing key with
 * secrets stored, or a key that opens none of some of them, is a SecretKeyError naming the key's source.
 */
export async function checkSecretKey(sql: Db, config: KeyConfig): Promise<SecretKey> {
  const stored = await storedPlaces(sql, { lock: false });
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
 * Re-seals every stored secret under `next`, in one transaction with the rows locked: all of them or, when one
 * cannot be opened with `current`, none. Returns how many were re-sealed.
 */
export async function resealSecrets(sql: Sql, current: Buffer, next: Buffer): Promise<number> {
  return sql.begin(async (tx) => {
    const rows = await sealedSecrets(tx, { lock: true });
    const passwords = await sealedCheckPasswords(tx, { lock: true });
    const headers = await sealedCheckHeaders(tx, { lock: true });
    const targets = await sealedTargetSecrets(tx, { lock: true });
    const mcpHeaders = await sealedHeaders(tx, { lock: true });
    const refused = unreadable(current, await storedPlaces(tx, { lock: false }));
    if (refused.length > 0) {
      throw new SecretKeyError(`the current key cannot decrypt ${named(refused)}: nothing was changed`);
    }
    let count = await resealStoredHeaders(tx, (place, sealed) =>
      sealSecret(next, place, openSecret(current, place, sealed)),
    );
    for (const { id, sealed } of passwords) {
      const place = checkPasswordPlace(id);
      await replaceCheckPassword(tx, id, sealSecret(next, place, openSecret(current, place, sealed)));
      count++;
    }
    for (const row of mcpHeaders) {
      const resealed: Record<string, string> = {};
      for (const [header, sealed] of Object.entries(row.headers)) {
        const place = headerPlace(row.id, header);
        resealed[header] = sealSecret(next, place, openSecret(current, place, sealed));
        count++;
      }
      await replaceHeaders(tx, row.id, resealed);
    }
    for (const { id, sealed } of headers) {
      const resealed: Record<string, string> = {};
      for (const [name, value] of Object.entries(sealed)) {
        const place = checkHeaderPlace(id, name);
        resealed[name] = sealSecret(next, place, openSecret(current, place, value));
        count++;
      }
      await replaceCheckHeaders(tx, id, resealed);
    }
    for (const row of rows) {
      const secrets: Record<string, string> = {};
      for (const [field, sealed] of Object.entries(row.secrets)) {
        const place = { kind: row.kind, field };
        secrets[field] = sealSecret(next, place, openSecret(current, place, sealed));
        count++;
      }
      await replaceSecrets(tx, row.kind, secrets);
    }
    for (const target of targets) {
      const secrets: Record<string, string> = {};
      for (const [field, sealed] of Object.entries(target.secrets)) {
        const place = alertTargetPlace(target.id, field);
        secrets[field] = sealSecret(next, place, openSecret(current, place, sealed));
        count++;
      }
      await replaceTargetSecrets(tx, target.id, secrets);
    }
    return count;
  }) as Promise<number>;
}
