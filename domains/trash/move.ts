// Moving to the trash and back. A delete of a page, space, project or reference first keeps the row and everything
// its delete takes along (subpages, tasks, links, history ...) in the trash, in the delete's transaction; a restore
// puts all of it back (a page where it was among its siblings, or last at the top level when its parent is gone);
// both are audited.
import { hubError } from '../../lib/errors.ts';
import type { Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { actorOf, insertAuditEntry } from '../audit/trail.ts';
import { lockPageTree } from '../pages/tree-lock.ts';
import type { TrashItem, TrashKind } from './schema.ts';
import { trashKinds } from './schema.ts';
import {
  keepInTrash,
  lockTrashItem,
  pageExistsIn,
  putBack,
  type RootRow,
  removeTrashItem,
  shiftSiblings,
  siblingCount,
  spaceExists,
  spaceOfPage,
} from './store.ts';

export function isTrashable(type: string): type is TrashKind {
  return (trashKinds as readonly string[]).includes(type);
}

/**
 * Keeps what a delete of `id` takes along in the trash; call it in the delete's transaction, before the delete. A
 * page's tree is locked first, so the subtree kept is the subtree deleted. Nothing happens for a row that does not
 * exist (the delete answers its 404). The owner's own delete is audited here; an agent's is audited already, as
 * its direct write or as the approval of its proposal.
 */
export async function moveToTrash(
  tx: Db,
  kind: TrashKind,
  id: string,
  who: { principal: Principal; author: unknown; audited: boolean },
): Promise<TrashItem | undefined> {
  if (kind === 'page') {
    const page = await spaceOfPage(tx, id);
    if (page) await lockPageTree(tx, page);
  }
  const kept = await keepInTrash(tx, { kind, id, deleted_by: who.author });
  if (!kept || !who.audited) return kept?.item;
  await insertAuditEntry(tx, {
    actor: actorOf(who.principal),
    action: 'trash',
    pending_change_id: null,
    entity_type: kind,
    entity_id: id,
    outcome: 'applied',
    detail: { trash_id: kept.item.id, rows: kept.item.row_count },
  });
  return kept.item;
}

/** Where a page goes back: its parent and position if the parent is still there, else last at the top level. */
async function placePage(tx: Db, root: RootRow): Promise<Record<string, unknown>> {
  const spaceId = String(root.space_id);
  await lockPageTree(tx, spaceId);
  const parentId = typeof root.parent_id === 'string' ? root.parent_id : null;
  const parentThere = parentId === null || (await pageExistsIn(tx, parentId, spaceId));
  const parent = parentThere ? parentId : null;
  const siblings = await siblingCount(tx, spaceId, parent);
  const position = parentThere ? Math.min(Number(root.position), siblings) : siblings;
  await shiftSiblings(tx, spaceId, parent, position);
  return { parent_id: parent, position };
}

/** Restores an item: all it took along comes back; audited. 404 when missing, 409 when its space is gone. */
export async function restoreFromTrash(tx: Db, id: string, principal: Principal): Promise<TrashItem> {
  const found = await lockTrashItem(tx, id);
  if (!found) throw hubError('TRASH_ITEM_NOT_FOUND', id);
  const { item, root } = found;
  if (item.kind !== 'space' && item.space_id && !(await spaceExists(tx, item.space_id))) {
    throw hubError(
      'TRASH_SPACE_GONE',
      `the ${item.kind} "${item.title}" was in a space that is gone: restore the space from the trash first`,
    );
  }
  const patch = item.kind === 'page' ? await placePage(tx, root) : {};
  await putBack(tx, id, patch);
  await removeTrashItem(tx, id);
  await insertAuditEntry(tx, {
    actor: actorOf(principal),
    action: 'restore',
    pending_change_id: null,
    entity_type: item.kind,
    entity_id: item.entity_id,
    outcome: 'applied',
    detail: { trash_id: id, rows: item.row_count },
  });
  return item;
}

/** Deletes an item from the trash for good; audited. `actor` is who (the owner, or the purge). */
export async function deleteForGood(tx: Db, id: string, actor: string): Promise<void> {
  const found = await lockTrashItem(tx, id);
  if (!found) throw hubError('TRASH_ITEM_NOT_FOUND', id);
  await removeTrashItem(tx, id);
  await auditPurge(tx, actor, found.item);
}

export async function auditPurge(
  tx: Db,
  actor: string,
  item: { id: string; kind: string; entity_id: string },
): Promise<void> {
  await insertAuditEntry(tx, {
    actor,
    action: 'purge',
    pending_change_id: null,
    entity_type: item.kind,
    entity_id: item.entity_id,
    outcome: 'applied',
    detail: { trash_id: item.id },
  });
}
