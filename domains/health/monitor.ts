// A monitored service for another domain's import (the Homepage import's siteMonitor): the http check of a URL, or
// the service already checking that target.
import type { Db } from '../../plugins/db.ts';
import { insertSealed, type KeyConfig } from './credentials.ts';
import { checkDefinition } from './definition.ts';
import { serviceWithTarget } from './store.ts';

/**
 * The id of the service checking `url` over http, added when none does yet (`created` says which); null when a
 * discovered candidate checks it (the owner promotes or dismisses candidates).
 */
export async function ensureHttpService(
  sql: Db,
  config: KeyConfig,
  service: { name: string; category: string; url: string },
): Promise<{ id: string; created: boolean } | null> {
  const { definition, ...secrets } = checkDefinition({ kind: 'http', ...service });
  const existing = await serviceWithTarget(sql, definition.target);
  if (existing) return existing.discovered ? null : { id: existing.id, created: false };
  const id = await insertSealed(sql, config, definition, secrets);
  if (!id) throw new Error(`a service checking ${definition.target} appeared meanwhile`);
  return { id, created: true };
}
