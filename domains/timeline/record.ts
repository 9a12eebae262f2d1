// Writing to the timeline, from any domain as things happen. Recording never fails or holds up the work that raised
// the event: inside the caller's transaction it runs under a savepoint (a failing insert rolls back only itself), and
// a failure is reported as a process warning, not thrown. The event commits with the caller's work, so the
// timeline never shows what was rolled back.
import type { Db } from '../../lib/db.ts';
import type { Actor, NewEvent } from './schema.ts';
import { insertEvent } from './store.ts';

export type { Actor, NewEvent, Severity } from './schema.ts';

/** The actor of a request, tool call or principal: an agent's id, else the owner. */
export function actorOf(caller: { kind?: string; agentId?: string | null } | null | undefined): Actor {
  return caller?.agentId ? { agent: caller.agentId } : 'owner';
}

export async function recordEvent(db: Db, event: NewEvent): Promise<void> {
  try {
    if ('savepoint' in db && typeof db.savepoint === 'function') {
      await db.savepoint((savepoint: Db) => insertEvent(savepoint, event));
    } else {
      await insertEvent(db, event);
    }
  } catch (error) {
    process.emitWarning(
      `timeline: ${event.kind} not recorded: ${(error as Error).message}`,
      'TimelineWarning',
    );
  }
}
