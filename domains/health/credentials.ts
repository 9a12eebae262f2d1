// A check's basic-auth password and request header values at rest: sealed under the hub's secret key like the
// integrations' secrets (AES-256-GCM, bound to their service and header name), opened only to run the check.
// Values stored before sealing existed are sealed once at start (`sealStoredPasswords`, idempotent: it touches only
// rows still holding plaintext). The migration cannot seal them: the key is not in the database.
import { randomUUID } from 'node:crypto';
import type { ServerConfig } from '../../config/server.ts';
import { type SecretPlace, SecretUnreadableError } from '../../lib/secrets.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { openHubSecret, recordStore, type SealedStore, sealHubSecret } from '../integrations/keyring.ts';
import type { BasicAuth, Definition, Headers, Secrets } from './definition.ts';
import {
  type CredentialColumns,
  type DueRow,
  type DueService,
  insertService,
  plaintextHeaders,
  plaintextPasswords,
  replaceCheckHeaders,
  replaceCheckPassword,
  replacePlaintextHeaders,
  replacePlaintextPassword,
  replaceService,
  type SealedHeaders,
  type StoredCredentials,
  sealedCheckHeaders,
  sealedCheckPasswords,
} from './store.ts';

export type KeyConfig = Pick<ServerConfig, 'dataDir' | 'secretKey'>;

/** Where a check's basic-auth password is sealed: bound to its service, so it opens for no other. */
export function checkPasswordPlace(serviceId: string): SecretPlace {
  return { kind: 'health', field: `basic_auth_password:${serviceId}` };
}

/** Where a check's request header value is sealed: bound to its service and the header's name. */
export function checkHeaderPlace(serviceId: string, name: string): SecretPlace {
  return { kind: 'health', field: `header:${serviceId}:${name}` };
}

/** The checks' sealed passwords (one per service), for the key check at start and the key rotation. */
const sealedPasswords: SealedStore = {
  async values(sql, options) {
    const rows = await sealedCheckPasswords(sql, options);
    return rows.map(({ id, sealed }) => ({ ...checkPasswordPlace(id), sealed }));
  },
  async reseal(sql, reseal) {
    const rows = await sealedCheckPasswords(sql, { lock: true });
    for (const { id, sealed } of rows)
      await replaceCheckPassword(sql, id, reseal(checkPasswordPlace(id), sealed));
    return rows.length;
  },
};

/** The checks' sealed passwords and header values. */
export const sealedCredentials: readonly SealedStore[] = [
  sealedPasswords,
  recordStore({
    rows: sealedCheckHeaders,
    record: (service) => service.sealed,
    placeOf: (service, name) => checkHeaderPlace(service.id, name),
    replace: (sql, service, headers) => replaceCheckHeaders(sql, service.id, headers),
  }),
];

async function sealed(config: KeyConfig, id: string, credentials: BasicAuth): Promise<StoredCredentials> {
  return {
    username: credentials.username,
    sealed: await sealHubSecret(config, checkPasswordPlace(id), credentials.password),
  };
}

async function sealedHeaders(config: KeyConfig, id: string, headers: Headers): Promise<SealedHeaders> {
  const sealed: SealedHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    sealed[name] = await sealHubSecret(config, checkHeaderPlace(id, name), value);
  }
  return sealed;
}

async function openedHeaders(config: KeyConfig, id: string, sealed: SealedHeaders): Promise<Headers> {
  const headers: Headers = {};
  for (const [name, value] of Object.entries(sealed)) {
    headers[name] = await openHubSecret(config, checkHeaderPlace(id, name), value);
  }
  return headers;
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
    headers: headers ? await sealedHeaders(config, id, headers) : null,
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
    headers: headers ? await sealedHeaders(config, id, headers) : headers,
  });
}

/** What the check sends, opened; a password or header that will not open makes the check fail saying so. */
export async function withCredentials(
  config: KeyConfig,
  row: DueRow,
): Promise<DueService | { service: DueRow; unreadable: string }> {
  const { basic_auth_username, basic_auth_sealed, basic_auth_password, headers, headers_sealed, ...rest } =
    row;
  const columns: CredentialColumns = { basic_auth_username, basic_auth_sealed, basic_auth_password };
  let opened: Headers = headers ?? {};
  let password = columns.basic_auth_password ?? '';
  try {
    if (headers_sealed !== null) opened = await openedHeaders(config, row.id, headers_sealed);
    if (columns.basic_auth_sealed !== null) {
      password = await openHubSecret(config, checkPasswordPlace(row.id), columns.basic_auth_sealed);
    }
  } catch (error) {
    if (!(error instanceof SecretUnreadableError)) throw error;
    return {
      service: row,
      unreadable:
        "its stored password or headers cannot be decrypted with the hub's secret key (a different key, or a " +
        'value moved from another service): enter them again',
    };
  }
  const service = { ...rest, headers: opened };
  if (columns.basic_auth_username === null) return { ...service, basic_auth: null };
  return { ...service, basic_auth: { username: columns.basic_auth_username, password } };
}

/** Seals every password and header set still stored in plaintext, in one transaction; how many it sealed. */
export async function sealStoredPasswords(sql: Sql, config: KeyConfig): Promise<number> {
  return (await sql.begin(async (tx) => {
    const rows = await plaintextPasswords(tx);
    for (const row of rows) {
      const place = checkPasswordPlace(row.id);
      await replacePlaintextPassword(tx, row.id, await sealHubSecret(config, place, row.password));
    }
    const headerRows = await plaintextHeaders(tx);
    for (const row of headerRows) {
      await replacePlaintextHeaders(tx, row.id, await sealedHeaders(config, row.id, row.headers));
    }
    return rows.length + headerRows.length;
  })) as number;
}
