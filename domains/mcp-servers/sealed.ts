// The downstream servers' headers as the hub's key sees them: each value sealed with its place (this server, this
// header), so the key check at start and the key rotation (domains/integrations/keyring.ts) cover them too.
import type { SecretPlace } from '../../lib/secrets.ts';
import { recordStore } from '../integrations/keyring.ts';
import { replaceHeaders, sealedHeaders } from './store.ts';

export function headerPlace(serverId: string, header: string): SecretPlace {
  return { kind: 'mcp', field: `header:${serverId}:${header.toLowerCase()}` };
}

/** Every server's sealed headers, for the key check at start and the key rotation. */
export const sealedServerHeaders = recordStore({
  rows: sealedHeaders,
  record: (server) => server.headers,
  placeOf: (server, header) => headerPlace(server.id, header),
  replace: (sql, server, headers) => replaceHeaders(sql, server.id, headers),
});
