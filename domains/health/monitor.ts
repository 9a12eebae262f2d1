// A monitored service for another domain's import (the Homepage import's siteMonitor): the http check of a URL, or
// the service already checking that target.
import type { Db } from '../../plugins/db.ts';
import { checkDefinition } from './definition.ts';
import { insertService, serviceWithTarget } from './store.ts';

/**
 * The id of the service checking `url` over http, added when none does yet (`created` says which); null when a
 * discovered candidate checks it (the owner promotes or dismisses candidates).
 */
export async function ensureHttpService(
  sql: Db,
  service: { name: string; category: string; url: string },
): Promise<{ id: string; created: boolean } | null> {
  const { definition, ...secrets } = checkDefinition({ kind: 'http', ...service });
  const existing = await serviceWithTarget(sql, definition.target);
  if (existing) return existing.discovered ? null : { id: existing.id, created: false };
  const id = await insertService(sql, definition, secrets);
  if (!id) throw new Error(`a service checking ${definition.target} appeared meanwhile`);
  return { id, created: true };
}
