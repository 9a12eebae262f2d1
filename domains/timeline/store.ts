// The events table (migration 0042).
import type { Db } from '../../lib/db.ts';
import type { NewEvent } from './schema.ts';

export async function insertEvent(sql: Db, event: NewEvent): Promise<void> {
  const actor = typeof event.actor === 'object' ? event.actor.agent : (event.actor ?? 'system');
  await sql`
    insert into events (at, kind, severity, title, subject_type, subject_id, actor, space_id, data)
    values (coalesce(${event.at ?? null}::timestamptz, clock_timestamp()), ${event.kind}, ${event.severity ?? 'info'},
            ${event.title.slice(0, 500)}, ${event.subject?.type ?? null}, ${event.subject?.id ?? null}, ${actor},
            ${event.space_id ?? null}, ${sql.json((event.data ?? {}) as never)})`;
}

export interface EventRow {
  id: string;
  at: Date;
  kind: string;
  severity: string;
  title: string;
  subject_type: string | null;
  subject_id: string | null;
  actor: string;
  space_id: string | null;
  data: Record<string, unknown>;
}

/** Events after `afterId` (oldest first), optionally of some kinds: what a follower has not seen yet. */
export async function eventsAfter(
  sql: Db,
  afterId: string,
  options: { kinds?: string[]; limit?: number } = {},
): Promise<EventRow[]> {
  return sql<EventRow[]>`
    select id::text, at, kind, severity, title, subject_type, subject_id, actor, space_id, data
    from events
    where id > ${afterId}::bigint ${options.kinds ? sql`and kind = any(${options.kinds})` : sql``}
    order by id limit ${options.limit ?? 500}`;
}

/**
 * Events in [since, until) (oldest first): a period's timeline, as a routine's view. With a space, that space's
 * events and the global ones (which have none), as a scoped agent reads them.
 */
export async function eventsBetween(
  sql: Db,
  since: Date,
  until: Date,
  options: { spaceId?: string | null; limit?: number } = {},
): Promise<EventRow[]> {
  return sql<EventRow[]>`
    select id::text, at, kind, severity, title, subject_type, subject_id, actor, space_id, data
    from events
    where at >= ${since} and at < ${until}
      ${options.spaceId ? sql`and (space_id is null or space_id = ${options.spaceId})` : sql``}
    order by at, id limit ${options.limit ?? 500}`;
}
