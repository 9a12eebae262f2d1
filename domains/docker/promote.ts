// The owner's decisions on a candidate: promote it (an app is created through the entity write path, as any owner's
// app write, and the candidate remembers it) or dismiss it (it stays dismissed across syncs).
import { hubError } from '../../lib/errors.ts';
import type { Sql } from '../../plugins/db.ts';
import { presentApp } from '../apps/present.ts';
import type { App } from '../apps/schema.ts';
import type { WriteContext } from '../entities/handler.ts';
import { applyEntityWriteIn } from '../entities/registry.ts';
import { dismissCandidate, findCandidate, markPromoted } from './store.ts';

export async function promoteCandidate(sql: Sql, ctx: WriteContext, id: string): Promise<App> {
  return (await sql.begin(async (tx) => {
    const candidate = await findCandidate(tx, id, true);
    if (!candidate) throw hubError('DISCOVERED_APP_NOT_FOUND', id);
    if (candidate.app_id) throw hubError('DISCOVERED_APP_PROMOTED', id, candidate.app_id);
    const payload = {
      name: candidate.name,
      href: candidate.href,
      description: candidate.description,
      icon: candidate.icon,
      ...(candidate.group ? { group: candidate.group } : {}),
    };
    const created = await applyEntityWriteIn(tx, { entity_type: 'app', action: 'create', payload }, ctx);
    await markPromoted(tx, id, created.entity_id);
    return {
      ...presentApp(created.entity as Parameters<typeof presentApp>[0]),
      container: { state: candidate.state, health: candidate.health },
    };
  })) as App;
}

export async function dismiss(sql: Sql, id: string): Promise<void> {
  if (!(await dismissCandidate(sql, id))) throw hubError('DISCOVERED_APP_NOT_FOUND', id);
}
