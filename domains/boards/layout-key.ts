// Where a board's layout is kept: the default board's is the dashboard layout (the caller's own key, as
// /api/dashboard/layout has it); every other board's under `board:<id>`, starting empty.
import { hubError } from '../../lib/errors.ts';
import type { Db } from '../../plugins/db.ts';
import { findBoard } from './store.ts';

export const boardKeyPrefix = 'board:';

export function boardLayoutKey(id: string): string {
  return `${boardKeyPrefix}${id}`;
}

/** The key of a board's layout, for a caller whose dashboard layout is under `ownerKey`; 404 for no board. */
export async function layoutKeyOfBoard(sql: Db, id: string, ownerKey: string): Promise<string> {
  const board = await findBoard(sql, id);
  if (!board) throw hubError('BOARD_NOT_FOUND', id);
  return board.is_default ? ownerKey : boardLayoutKey(id);
}
