// A monitored service for another domain's import (the Homepage import's siteMonitor and ping): the http check of a
// URL or the ping of a host, or the service already checking that target.
import type { Db } from '../../plugins/db.ts';
import { insertSealed, type KeyConfig } from './credentials.ts';
import { checkDefinition } from './definition.ts';
import { serviceWithTarget } from './store.ts';

/** What an import asks to be watched: a URL over http, or a host answering ping. */
export type WatchedTarget = { name: string; category: string } & (
  | { kind: 'http'; url: string }
  | { kind: 'ping'; host: string }
);

/**
 * The id of the service checking the target (an http URL or a ping host), added when none does yet (`created` says
 * which); null when a discovered candidate checks it (the owner promotes or dismisses candidates).
 */
export async function ensureService(
  sql: Db,
  config: KeyConfig,
  service: WatchedTarget,
): Promise<{ id: string; created: boolean } | null> {
  const { definition, ...secrets } = checkDefinition(service);
  const existing = await serviceWithTarget(sql, definition.target);
  if (existing) return existing.discovered ? null : { id: existing.id, created: false };
  const id = await insertSealed(sql, config, definition, secrets);
  if (!id) throw new Error(`a service checking ${definition.target} appeared meanwhile`);
  return { id, created: true };
}
