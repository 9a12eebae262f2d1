// Page writes for the entity registry. Every change to the tree of a space holds that space's page-tree lock,
// so sibling positions stay distinct and contiguous (0..n-1) and the cycle check sees a settled tree.
import { hubError } from '../../lib/errors.ts';
import { normaliseTags } from '../../lib/tags.ts';
import { agentCanReachSpace } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import {
  type EntityHandler,
  inReach,
  missing,
  spaceToCreateIn,
  validator,
  type WriteContext,
} from '../entities/handler.ts';
import { linkedTitles, relinked } from './links.ts';
import { CreatePage, UpdatePage } from './schema.ts';
import {
  deletePage,
  findPage,
  insertPage,
  isSelfOrAncestor,
  lockPage,
  lockPageTree,
  type PageRow,
  pagesLinkingTo,
  renumber,
  setPageLinks,
  siblingIds,
  titleTaken,
  touchPage,
  updatePage,
} from './store.ts';

const checkCreate = validator(CreatePage, 'page');
const checkUpdate = validator(UpdatePage, 'page patch');

/** A parent must exist in the same space and must not be the page itself or below it. */
async function checkParent(
  tx: Db,
  ctx: WriteContext,
  spaceId: string,
  parentId: string,
  movingId: string | null,
): Promise<void> {
  const parent = await findPage(tx, parentId);
  // A parent in a space the caller cannot see is as missing as one that does not exist.
  if (!parent || !agentCanReachSpace(ctx.principal, parent.space_id)) throw hubError('PARENT_PAGE_NOT_FOUND');
  if (parent.space_id !== spaceId) throw hubError('SPACE_MISMATCH', 'the parent page is in another space');
  if (movingId && (await isSelfOrAncestor(tx, movingId, parentId))) throw hubError('PAGE_CYCLE');
}

/** Puts `id` at `position` (clamped to the end) in a sibling group listed without it, then renumbers 0..n-1. */
async function place(tx: Db, others: string[], id: string, position: number | undefined): Promise<void> {
  const at = Math.min(position ?? others.length, others.length);
  await renumber(tx, [...others.slice(0, at), id, ...others.slice(at)]);
}

/**
 * A renamed page keeps its links: the pages of its space linking to the old title are edited to link to the new
 * one (each an edit of its own, so its history keeps the old text). Not when another page still has the old title:
 * those links may mean that page.
 */
async function relinkRenamed(tx: Db, page: PageRow, title: string): Promise<void> {
  if (title === page.title || (await titleTaken(tx, page.space_id, page.title, page.id))) return;
  for (const linking of await pagesLinkingTo(tx, page.space_id, page.title, page.id)) {
    const current = await lockPage(tx, linking.id);
    if (!current) continue;
    const body = relinked(current.body, page.title, title);
    if (body === current.body) continue;
    await updatePage(tx, current.id, { body });
    await setPageLinks(tx, current.id, linkedTitles(body));
  }
}

async function reload(tx: Db, id: string): Promise<PageRow> {
  const page = await findPage(tx, id);
  if (!page) throw missing('page');
  return page;
}

export const pageHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await spaceToCreateIn(tx, ctx, input.space_id);
    await lockPageTree(tx, spaceId);
    const parentId = input.parent_id ?? null;
    if (parentId) await checkParent(tx, ctx, spaceId, parentId, null);
    const others = await siblingIds(tx, spaceId, parentId);
    // Inserted past the end, then placed: the deferred sibling constraint is checked at commit.
    const page = await insertPage(tx, {
      space_id: spaceId,
      parent_id: parentId,
      position: others.length,
      title: input.title.trim(),
      body: input.body ?? '',
      tags: normaliseTags(input.tags ?? []),
    });
    await setPageLinks(tx, page.id, linkedTitles(page.body));
    await place(tx, others, page.id, input.position);
    return reload(tx, page.id);
  },

  async update(tx, id, patch, ctx) {
    const input = checkUpdate(patch);
    const current = inReach(ctx.principal, await findPage(tx, id), 'page');
    await lockPageTree(tx, current.space_id);
    // Locked after the tree lock, so a concurrent delete or move of this page has finished.
    const page = await lockPage(tx, id);
    if (!page) throw missing('page');

    const parentId = input.parent_id === undefined ? page.parent_id : input.parent_id;
    const moved = parentId !== page.parent_id;
    if (moved && parentId) await checkParent(tx, ctx, page.space_id, parentId, page.id);
    if (input.title !== undefined) await relinkRenamed(tx, page, input.title.trim());
    await updatePage(tx, id, {
      ...(moved ? { parent_id: parentId } : {}),
      ...(input.title !== undefined ? { title: input.title.trim() } : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.tags !== undefined ? { tags: normaliseTags(input.tags) } : {}),
    });
    if (input.body !== undefined) await setPageLinks(tx, id, linkedTitles(input.body));
    if (moved) {
      await renumber(tx, await siblingIds(tx, page.space_id, page.parent_id, id));
      await place(tx, await siblingIds(tx, page.space_id, parentId, id), id, input.position);
    } else if (input.position !== undefined) {
      await place(tx, await siblingIds(tx, page.space_id, parentId, id), id, input.position);
    }
    if (moved || input.position !== undefined) await touchPage(tx, id);
    return reload(tx, id);
  },

  async delete(tx, id, ctx) {
    const current = inReach(ctx.principal, await findPage(tx, id), 'page');
    await lockPageTree(tx, current.space_id);
    const page = await lockPage(tx, id);
    if (!page) throw missing('page');
    // The subtree goes with the page (foreign key cascade); the remaining siblings close the gap.
    await deletePage(tx, id);
    await renumber(tx, await siblingIds(tx, page.space_id, page.parent_id));
    return page;
  },
};
