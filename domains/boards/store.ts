// Boards in SQL. Positions are contiguous (0..n-1): every change holds the boards lock, and the unique position is
// deferred so a renumbering is checked at commit. A board's own layout is a dashboard layout under its key.
import type { Db } from '../../plugins/db.ts';
import type { Board } from './schema.ts';

const columns = ['id', 'name', 'position', 'is_default', 'created_at', 'updated_at'];

export async function listBoards(sql: Db): Promise<Board[]> {
  return sql<Board[]>`select ${sql(columns)} from boards order by position, id`;
}

export async function findBoard(sql: Db, id: string): Promise<Board | undefined> {
  const [row] = await sql<Board[]>`select ${sql(columns)} from boards where id = ${id}`;
  return row;
}

/** Serialises every change to the boards' order until the transaction ends. */
export async function lockBoards(sql: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('boards'))`;
}

export async function boardIds(sql: Db, exceptId: string | null = null): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from boards ${exceptId ? sql`where id <> ${exceptId}` : sql``} order by position, id`;
  return rows.map((row) => row.id);
}

export async function renumberBoards(sql: Db, orderedIds: string[]): Promise<void> {
  if (orderedIds.length === 0) return;
  await sql`
    update boards set position = array_position(${orderedIds}::uuid[], id) - 1
    where id = any(${orderedIds}::uuid[]) and position <> array_position(${orderedIds}::uuid[], id) - 1`;
}

export async function insertBoard(sql: Db, name: string, position: number): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into boards (name, position) values (${name}, ${position}) returning id`;
  return row.id;
}

export async function renameBoard(sql: Db, id: string, name: string | undefined): Promise<void> {
  await sql`update boards set ${name === undefined ? sql`` : sql`name = ${name},`} updated_at = now()
    where id = ${id}`;
}

/** Deletes a board and its layout (kept with the dashboard layouts under the board's key). */
export async function deleteBoard(sql: Db, id: string, layoutKey: string): Promise<void> {
  await sql`delete from dashboard_layouts where owner_key = ${layoutKey}`;
  await sql`delete from boards where id = ${id}`;
}
