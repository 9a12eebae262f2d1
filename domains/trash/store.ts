// The trash table and the rows it keeps (collected and put back by the functions of sql/0026), and the checks a
// restore needs of the places it puts rows back.
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';
import type { TrashItem, TrashKind } from './schema.ts';

const columns = ['id', 'kind', 'entity_id', 'title', 'space_id', 'row_count', 'deleted_by', 'deleted_at'];

/** An item's columns, with what it holds besides its own row: a count per table (the root row is the first). */
function selection(sql: Db) {
  return sql`${sql(columns)}, (
    select coalesce(jsonb_object_agg(tbl, n), '{}')
    from (select e ->> 'table' as tbl, count(*)::int as n
          from jsonb_array_elements(rows) with ordinality as kept (e, i) where i > 1 group by 1) counted
  ) as contents`;
}

const tables: Record<TrashKind, string> = {
  page: 'pages',
  space: 'spaces',
  project: 'projects',
  ref: 'refs',
};

/** The root row of an item as it was (its first collected row). */
export type RootRow = Record<string, unknown> & { id: string };

/**
 * Keeps the row and everything its delete would take along in the trash; undefined when there is no such row.
 * Runs before the delete, in its transaction.
 */
export async function keepInTrash(
  sql: Db,
  item: { kind: TrashKind; id: string; deleted_by: unknown },
): Promise<{ item: TrashItem; root: RootRow } | undefined> {
  const [row] = await sql<(TrashItem & { root: RootRow })[]>`
    with collected as (select trash_collect(${tables[item.kind]}::regclass, ${item.id}::uuid) as rows)
    insert into trash (kind, entity_id, title, space_id, rows, row_count, deleted_by)
    select ${item.kind}, ${item.id}, left(coalesce(nullif(r ->> 'title', ''), r ->> 'name', r ->> 'url',
                                                   r ->> 'external_id', ''), 500),
           ${item.kind === 'space' ? sql`${item.id}::uuid` : sql`(r ->> 'space_id')::uuid`},
           rows, jsonb_array_length(rows), ${sql.json(item.deleted_by as never)}
    from collected, lateral (select rows -> 0 -> 'row' as r) root
    where rows is not null
    returning ${selection(sql)}, rows -> 0 -> 'row' as root`;
  if (!row) return undefined;
  const { root, ...kept } = row;
  return { item: kept, root };
}

export async function listTrash(sql: Db, filter: { kind?: string; limit: number; offset: number }) {
  return listPage<TrashItem>(
    sql,
    {
      select: selection(sql),
      from: sql`from trash ${filter.kind ? sql`where kind = ${filter.kind}` : sql``}`,
      orderBy: sql`deleted_at desc, id`,
    },
    filter,
  );
}

/** An item and its root row, locked for the restore or removal that follows. */
export async function lockTrashItem(
  sql: Db,
  id: string,
): Promise<{ item: TrashItem; root: RootRow } | undefined> {
  const [row] = await sql<(TrashItem & { root: RootRow })[]>`
    select ${selection(sql)}, rows -> 0 -> 'row' as root from trash where id = ${id} for update`;
  if (!row) return undefined;
  const { root, ...item } = row;
  return { item, root };
}

/** Puts an item's rows back, its root row changed by `rootPatch` (a page's new parent and position). */
export async function putBack(sql: Db, id: string, rootPatch: Record<string, unknown>): Promise<void> {
  await sql`
    select trash_restore(jsonb_set(rows, '{0,row}', (rows -> 0 -> 'row') || ${sql.json(rootPatch as never)}))
    from trash where id = ${id}`;
}

export async function removeTrashItem(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from trash where id = ${id}`;
  return result.count > 0;
}

/** Removes items deleted longer ago than `days`; answers their ids and kinds (for the audit log). */
export async function purgeTrash(
  sql: Db,
  days: number,
): Promise<{ id: string; kind: string; entity_id: string }[]> {
  return sql<{ id: string; kind: string; entity_id: string }[]>`
    delete from trash where deleted_at < now() - make_interval(days => ${days})
    returning id, kind, entity_id`;
}

export async function spaceExists(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql`select 1 from spaces where id = ${id}`;
  return row !== undefined;
}

export async function pageExistsIn(sql: Db, id: string, spaceId: string): Promise<boolean> {
  const [row] = await sql`select 1 from pages where id = ${id} and space_id = ${spaceId}`;
  return row !== undefined;
}

/** How many pages share a parent (null: the top level of the space). */
export async function siblingCount(sql: Db, spaceId: string, parentId: string | null): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from pages where space_id = ${spaceId} and parent_id is not distinct from ${parentId}`;
  return row.n;
}

/** Makes room at `position` among the siblings (positions are unique per parent, checked at commit). */
export async function shiftSiblings(
  sql: Db,
  spaceId: string,
  parentId: string | null,
  position: number,
): Promise<void> {
  await sql`
    update pages set position = position + 1
    where space_id = ${spaceId} and parent_id is not distinct from ${parentId} and position >= ${position}`;
}

export async function spaceOfPage(sql: Db, id: string): Promise<string | undefined> {
  const [row] = await sql<{ space_id: string }[]>`select space_id from pages where id = ${id}`;
  return row?.space_id;
}
