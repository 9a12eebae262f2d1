import { captureOrigin } from './routing.ts';
import type { Capture } from './schema.ts';
import type { InboxRow } from './store.ts';

/** An inbox row as the API shows it: where it came from instead of its task and route in. */
export function presentInboxRow({ task, via, ...row }: InboxRow): Capture {
  return { ...row, origin: task && via ? captureOrigin(task, via) : 'upload' };
}
