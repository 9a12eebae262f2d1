import type { Static } from 'typebox';
import { listPage } from '../../lib/list-page.ts';
import { hasTag } from '../../lib/tags.ts';
import type { Db } from '../../plugins/db.ts';
import type { Page } from './schema.ts';

/** A row as the API shows it: the Page schema's type. */
export type PageRow = Static<typeof Page>;

export type PageSummary = Omit<PageRow, 'body' | 'tags'>;

const columns = [
  'id',
  'space_id',
  'parent_id',
  'position',
  'title',
  'body',
  'tags',
  'created_at',
  'updated_at',
];
const summaryColumns = columns.filter((column) => column !== 'body' && column !== 'tags');

/** Advisory-lock class of page structure changes (creates, moves, deletes), one lock per space. */
const pageTreeLockClass = 3_001;

/**
 * Serialises every change to the page tree of one space until the transaction ends: sibling renumbering and the
 * cycle check then always see a settled tree.
 */
export async function lockPageTree(sql: Db, spaceId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(${pageTreeLockClass}, hashtext(${spaceId}))`;
}

export async function findPage(sql: Db, id: string): Promise<PageRow | undefined> {
  const [row] = await sql<PageRow[]>`select ${sql(columns)} from pages where id = ${id}`;
  return row;
}

export async function lockPage(sql: Db, id: string): Promise<PageRow | undefined> {
  const [row] = await sql<PageRow[]>`select ${sql(columns)} from pages where id = ${id} for update`;
  return row;
}

/** Ids of a sibling group in display order (position, then title), optionally without one page. */
export async function siblingIds(
  sql: Db,
  spaceId: string,
  parentId: string | null,
  exceptId: string | null = null,
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from pages
    where space_id = ${spaceId} and parent_id is not distinct from ${parentId}
      ${exceptId ? sql`and id <> ${exceptId}` : sql``}
    order by position, title, id`;
  return rows.map((row) => row.id);
}

/** Gives the pages positions 0..n-1 in the order given, touching only rows whose position changes. */
export async function renumber(sql: Db, orderedIds: string[]): Promise<void> {
  if (orderedIds.length === 0) return;
  await sql`
    update pages set position = array_position(${orderedIds}::uuid[], id) - 1
    where id = any(${orderedIds}::uuid[]) and position <> array_position(${orderedIds}::uuid[], id) - 1`;
}

/** Whether `pageId` is `candidateId` or one of its ancestors: making `candidateId` its parent would be a cycle. */
export async function isSelfOrAncestor(sql: Db, pageId: string, candidateId: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    with recursive up as (
      select id, parent_id from pages where id = ${candidateId}
      union
      select p.id, p.parent_id from pages p join up on p.id = up.parent_id
    )
    select exists (select 1 from up where id = ${pageId}) as found`;
  return row.found;
}

export async function insertPage(
  sql: Db,
  page: {
    space_id: string;
    parent_id: string | null;
    position: number;
    title: string;
    body: string;
    tags: string[];
  },
): Promise<PageRow> {
  const [row] = await sql<PageRow[]>`
    insert into pages (space_id, parent_id, position, title, body, tags)
    values (${page.space_id}, ${page.parent_id}, ${page.position}, ${page.title}, ${page.body}, ${page.tags})
    returning ${sql(columns)}`;
  return row;
}

export async function updatePage(
  sql: Db,
  id: string,
  fields: { parent_id?: string | null; title?: string; body?: string; tags?: string[] },
): Promise<void> {
  if (Object.keys(fields).length === 0) return;
  await sql`update pages set ${sql(fields)}, updated_at = now() where id = ${id}`;
}

export async function touchPage(sql: Db, id: string): Promise<void> {
  await sql`update pages set updated_at = now() where id = ${id}`;
}

export async function deletePage(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from pages where id = ${id}`;
  return result.count > 0;
}

export async function listPages(
  sql: Db,
  filter: { spaceId?: string; parentId?: string; tag?: string; limit: number; offset: number },
) {
  const where = sql`where true
    ${filter.spaceId ? sql`and space_id = ${filter.spaceId}` : sql``}
    ${filter.parentId ? sql`and parent_id = ${filter.parentId}` : sql``}
    ${filter.tag ? sql`and ${hasTag(sql, sql`tags`, filter.tag)}` : sql``}`;
  return listPage<PageRow>(
    sql,
    {
      select: sql`${sql(columns)}`,
      from: sql`from pages ${where}`,
      orderBy: sql`space_id, parent_id nulls first, position, title, id`,
    },
    filter,
  );
}

/** Every page of a space without bodies, each sibling group in display order. */
export async function spacePageSummaries(sql: Db, spaceId: string): Promise<PageSummary[]> {
  return sql<PageSummary[]>`
    select ${sql(summaryColumns)} from pages where space_id = ${spaceId} order by position, title, id`;
}

/** Makes the page's stored links exactly the titles given (its body's links after a write). */
export async function setPageLinks(sql: Db, pageId: string, titles: string[]): Promise<void> {
  await sql`delete from page_links where from_page = ${pageId} and not (to_title = any(${titles}::text[]))`;
  if (titles.length === 0) return;
  await sql`
    insert into page_links (from_page, to_title) select ${pageId}, unnest(${titles}::text[])
    on conflict do nothing`;
}

/** The pages of the space linking to a title (any case), in title order; the page itself excepted. */
export async function pagesLinkingTo(
  sql: Db,
  spaceId: string,
  title: string,
  exceptId: string,
): Promise<PageSummary[]> {
  return sql<PageSummary[]>`
    select ${sql(summaryColumns.map((column) => `p.${column}`))} from pages p
    where p.space_id = ${spaceId} and p.id <> ${exceptId}
      and exists (select 1 from page_links l where l.from_page = p.id and lower(l.to_title) = lower(${title}))
    order by p.title, p.id`;
}

/** Whether another page of the space has this title (any case). */
export async function titleTaken(
  sql: Db,
  spaceId: string,
  title: string,
  exceptId: string,
): Promise<boolean> {
  const [row] = await sql<{ taken: boolean }[]>`
    select exists (
      select 1 from pages where space_id = ${spaceId} and lower(title) = lower(${title}) and id <> ${exceptId}
    ) as taken`;
  return row.taken;
}
