// How a caller sees resources: the owner every column, agents the allow-listed ones, and a space-scoped agent only
// its space's side of a dependency (a resource elsewhere that one of its resources depends on stays unseen).
import type { Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { type ContextResource, findResource, ownerView, type ResourceView, toContext } from './store.ts';

export function viewOf(principal: Principal | null): ResourceView {
  if (principal?.kind === 'owner') return ownerView;
  return { columns: 'context', within: principal?.kind === 'agent' ? principal.spaceId : null };
}

/** A written resource as its writer may read it: read again in the writer's view. */
export async function presentResource(sql: Db, entity: object, principal: Principal): Promise<unknown> {
  if (principal.kind === 'owner') return entity;
  const written = entity as ContextResource;
  const seen = await findResource(sql, written.id, viewOf(principal));
  // Deleted since it was written: what was written, without its dependencies.
  return seen ? toContext(seen) : { ...toContext(written), depends_on: [] };
}
