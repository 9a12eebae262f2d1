// A check's basic-auth password at rest: sealed under the hub's secret key like the integrations' secrets
// (AES-256-GCM, bound to its service), opened only to run the check. Passwords stored before sealing existed are
// sealed once at start (`sealStoredPasswords`, idempotent: it touches only rows still holding plaintext).
import { randomUUID } from 'node:crypto';
import type { ServerConfig } from '../../config/server.ts';
import { SecretUnreadableError } from '../../lib/secrets.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { checkPasswordPlace, openHubSecret, sealHubSecret } from '../integrations/keyring.ts';
import type { BasicAuth, Definition, Secrets } from './definition.ts';
import {
  type CredentialColumns,
  type DueRow,
  type DueService,
  insertService,
  plaintextPasswords,
  replacePlaintextPassword,
  replaceService,
  type StoredCredentials,
} from './store.ts';

export type KeyConfig = Pick<ServerConfig, 'dataDir' | 'secretKey'>;

async function sealed(config: KeyConfig, id: string, credentials: BasicAuth): Promise<StoredCredentials> {
  return {
    username: credentials.username,
    sealed: await sealHubSecret(config, checkPasswordPlace(id), credentials.password),
  };
}

/** A new service with its credentials sealed; undefined when its target is taken. */
export async function insertSealed(
  sql: Db,
  config: KeyConfig,
  definition: Definition,
  { credentials, headers }: Secrets,
): Promise<string | undefined> {
  const id = randomUUID();
  return insertService(sql, id, definition, {
    credentials: credentials ? await sealed(config, id, credentials) : null,
    headers: headers ?? null,
  });
}

/** Replaces a service's definition, sealing new credentials (undefined keeps those stored, headers too). */
export async function replaceSealed(
  sql: Db,
  config: KeyConfig,
  id: string,
  definition: Definition,
  { credentials, headers }: Secrets,
): Promise<void> {
  await replaceService(sql, id, definition, {
    credentials: credentials ? await sealed(config, id, credentials) : credentials,
    headers,
  });
}

/** What the check sends, opened; a password that will not open makes the check fail saying so. */
export async function withCredentials(
  config: KeyConfig,
  row: DueRow,
): Promise<DueService | { service: DueRow; unreadable: string }> {
  const { basic_auth_username, basic_auth_sealed, basic_auth_password, headers, ...rest } = row;
  const service = { ...rest, headers: headers ?? {} };
  const columns: CredentialColumns = { basic_auth_username, basic_auth_sealed, basic_auth_password };
  if (columns.basic_auth_username === null) return { ...service, basic_auth: null };
  let password = columns.basic_auth_password ?? '';
  if (columns.basic_auth_sealed !== null) {
    try {
      password = await openHubSecret(config, checkPasswordPlace(row.id), columns.basic_auth_sealed);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      return {
        service: row,
        unreadable:
          "its stored password cannot be decrypted with the hub's secret key (a different key, or a value moved " +
          'from another service): enter it again',
      };
    }
  }
  return { ...service, basic_auth: { username: columns.basic_auth_username, password } };
}

/** Seals every password still stored in plaintext, in one transaction; how many it sealed. */
export async function sealStoredPasswords(sql: Sql, config: KeyConfig): Promise<number> {
  return (await sql.begin(async (tx) => {
    const rows = await plaintextPasswords(tx);
    for (const row of rows) {
      const place = checkPasswordPlace(row.id);
      await replacePlaintextPassword(tx, row.id, await sealHubSecret(config, place, row.password));
    }
    return rows.length;
  })) as number;
}
