// The downstream servers' headers as the hub's key sees them: each value sealed with its place (this server, this
// header), so the key check at start and the key rotation (domains/integrations/keyring.ts) cover them too.
import type { SecretPlace } from '../../lib/secrets.ts';

export { replaceHeaders, sealedHeaders } from './store.ts';

export function headerPlace(serverId: string, header: string): SecretPlace {
  return { kind: 'mcp', field: `header:${serverId}:${header.toLowerCase()}` };
}
