// The timeline's record of an entity write (page.updated, task.created ...): who made it and which entity, in the
// entity's space, committed with the write itself.
import type { Db } from '../../plugins/db.ts';
import { type Actor, recordEvent } from '../timeline/record.ts';
import type { Entity, WriteContext } from './handler.ts';

const done = { create: 'created', update: 'updated', delete: 'deleted', upsert: 'updated' } as const;

/** The agent whose words these are (directly, or through the owner's approval of its proposal), else the owner. */
function actorOfWrite(ctx: WriteContext): Actor {
  if (ctx.approval?.agent_id) return { agent: ctx.approval.agent_id };
  return ctx.principal.kind === 'agent' ? { agent: ctx.principal.agentId } : 'owner';
}

/** Deferred actions (captures, uploads) are no entities: they record their own outcome. */
export async function recordEntityWrite(
  tx: Db,
  write: { entity_type: string; action: keyof typeof done },
  result: { entity_id: string; entity: Entity; created: boolean; version?: number },
  ctx: WriteContext,
): Promise<void> {
  // A rehearsal rolls back: it happened to nobody.
  if (ctx.rehearsal) return;
  const entity = result.entity as { id: string; title?: unknown; name?: unknown; space_id?: unknown };
  const named = [entity.title, entity.name].find((value) => typeof value === 'string' && value !== '');
  const type = write.entity_type;
  const what = write.action === 'upsert' && result.created ? 'created' : done[write.action];
  const label = type.replace(/_/g, ' ');
  await recordEvent(tx, {
    kind: `${type}.${what}`,
    title: `${label[0].toUpperCase()}${label.slice(1)} ${named ? `“${named}” ` : ''}${what}`,
    subject: { type, id: result.entity_id },
    actor: actorOfWrite(ctx),
    space_id: typeof entity.space_id === 'string' ? entity.space_id : null,
    data: {
      action: write.action,
      ...(result.version === undefined ? {} : { version: result.version }),
      ...(ctx.approval ? { pending_change_id: ctx.approval.pending_change_id, approved_by: 'owner' } : {}),
    },
  });
}
