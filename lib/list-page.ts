// One page of a list and the total it is cut from, the `{ items, total }` of every paginated list store. The store
// gives its own fragments (what to select, from where, in which order); this runs the two queries alike everywhere.
import type { PendingQuery, Row } from 'postgres';
import type { Db } from './db.ts';

type Fragment = PendingQuery<Row[]>;

export interface ListQuery {
  /** What each item is: `sql\`${sql(columns)}\``. */
  select: Fragment;
  /** The rows, filters included: `sql\`from pages ${where}\``; counted for the total. */
  from: Fragment;
  /** A total order (end with the id), so pages neither repeat nor skip rows. */
  orderBy: Fragment;
}

export async function listPage<Item extends object>(
  sql: Db,
  query: ListQuery,
  page: { limit: number; offset: number },
): Promise<{ items: Item[]; total: number }> {
  const items = await sql<Item[]>`
    select ${query.select} ${query.from} order by ${query.orderBy} limit ${page.limit} offset ${page.offset}`;
  const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total ${query.from}`;
  return { items, total };
}
