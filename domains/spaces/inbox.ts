// The default space: where a capture, or a create of a page, project, ref, resource or source document, goes when it
// names no space. It is the "Inbox" (any case), made on first use.
import type { Db } from '../../plugins/db.ts';
import { ensureSpaceNamed } from './store.ts';

export const defaultSpaceName = 'Inbox';

/** The default space's id, making the space when there is none yet. */
export function defaultSpaceId(sql: Db): Promise<string> {
  return ensureSpaceNamed(sql, defaultSpaceName, 'Captures and notes that were not given a space');
}
