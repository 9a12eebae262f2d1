// Page versions (written by the trigger of sql/0026, read and purged here).
import type { Db } from '../../plugins/db.ts';
import type { PageVersion } from './schema.ts';

export type VersionText = PageVersion & { body: string };

function columns(sql: Db) {
  return sql`v.n, v.title, v.size, v.restored_from, v.created_at,
    json_build_object('kind', v.author_kind, 'agent_id', v.agent_id, 'pending_change_id', v.pending_change_id)
      as author,
    v.n = (select max(n) from page_versions l where l.page_id = v.page_id) as current`;
}

/** The page's title and body now, or undefined when there is no such page. */
export async function currentText(
  sql: Db,
  pageId: string,
): Promise<{ title: string; body: string } | undefined> {
  const [row] = await sql<
    { title: string; body: string }[]
  >`select title, body from pages where id = ${pageId}`;
  return row;
}

/** Newest first. */
export async function listVersions(
  sql: Db,
  pageId: string,
  page: { limit: number; offset: number },
): Promise<{ items: PageVersion[]; total: number }> {
  const items = await sql<PageVersion[]>`
    select ${columns(sql)} from page_versions v where v.page_id = ${pageId}
    order by v.n desc limit ${page.limit} offset ${page.offset}`;
  const [{ total }] = await sql<{ total: number }[]>`
    select count(*)::int as total from page_versions where page_id = ${pageId}`;
  return { items, total };
}

export async function findVersion(sql: Db, pageId: string, n: number): Promise<VersionText | undefined> {
  const [row] = await sql<VersionText[]>`
    select ${columns(sql)}, v.body from page_versions v where v.page_id = ${pageId} and v.n = ${n}`;
  return row;
}

export async function latestVersion(sql: Db, pageId: string): Promise<number> {
  const [row] = await sql<
    { n: number | null }[]
  >`select max(n) as n from page_versions where page_id = ${pageId}`;
  return row.n ?? 0;
}

/** Marks version `n` of the page as the restore of version `from`. */
export async function markRestored(sql: Db, pageId: string, n: number, from: number): Promise<void> {
  await sql`update page_versions set restored_from = ${from} where page_id = ${pageId} and n = ${n}`;
}

/**
 * Deletes versions older than `days`, except each page's `keepLast` newest (the current text among them). Answers
 * how many went.
 */
export async function purgeVersions(sql: Db, days: number, keepLast: number): Promise<number> {
  const result = await sql`
    delete from page_versions v
    using (select page_id, n, row_number() over (partition by page_id order by n desc) as rank
           from page_versions) ranked
    where v.page_id = ranked.page_id and v.n = ranked.n
      and ranked.rank > ${keepLast} and v.created_at < now() - make_interval(days => ${days})`;
  return result.count;
}
