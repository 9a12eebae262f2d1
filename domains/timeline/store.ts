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

/**
 * Events after `afterId` in id order, optionally of some kinds. Not for a follower: an event whose transaction
 * commits after a later id's is not there yet when that id is read (`eventsCommittedAfter` waits for it).
 */
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

/** Where a follower stands on the timeline: the transaction and id of the last event it read (migration 0051). */
export interface CommitPosition {
  tx: string;
  id: string;
}

export type CommittedEvent = EventRow & CommitPosition;

/**
 * Events past `after` in commit order (oldest first), optionally of some kinds: what a follower has not read yet.
 * Only events of transactions older than every transaction still running are read (below the snapshot's xmin), so
 * no event can commit behind a position once it has been passed; an event committed after a later one waits until
 * everything before it has finished, then comes first.
 */
export async function eventsCommittedAfter(
  sql: Db,
  after: CommitPosition,
  options: { kinds?: string[]; limit?: number } = {},
): Promise<CommittedEvent[]> {
  return sql<CommittedEvent[]>`
    select id::text, tx::text, at, kind, severity, title, subject_type, subject_id, actor, space_id, data
    from events
    where (tx, id) > (${after.tx}::xid8, ${after.id}::bigint)
      and tx < pg_snapshot_xmin(pg_current_snapshot())
      ${options.kinds ? sql`and kind = any(${options.kinds})` : sql``}
    order by tx, id limit ${options.limit ?? 500}`;
}

/** Whether events past `after` (of some kinds) are committed but not yet read: an older transaction still runs. */
export async function eventsWaitingAfter(
  sql: Db,
  after: CommitPosition,
  options: { kinds?: string[] } = {},
): Promise<boolean> {
  const [row] = await sql<{ waiting: boolean }[]>`
    select exists (
      select 1 from events
      where (tx, id) > (${after.tx}::xid8, ${after.id}::bigint)
        ${options.kinds ? sql`and kind = any(${options.kinds})` : sql``}
    ) as waiting`;
  return row.waiting;
}

/** Which events a reader may see: a space-scoped agent its space's and the global ones; anyone else, all. */
export interface EventScope {
  spaceId: string | null;
}

export interface EventFilter {
  since?: Date;
  until?: Date;
  /** LIKE patterns of kinds (`device.%`). */
  kindPatterns?: string[];
  subject?: { type: string; id: string };
  q?: string;
  /** Only events older than this position (the cursor of the page before). */
  before?: { atMicros: string; id: string };
}

/** An event with its position as exact microseconds since the epoch (a Date holds only milliseconds). */
export type PositionedEvent = EventRow & { at_us: string };

const columns = (sql: Db) =>
  sql`id::text, at, kind, severity, title, subject_type, subject_id, actor, space_id, data,
      ((extract(epoch from at) * 1000000)::bigint)::text as at_us`;

const scoped = (sql: Db, scope: EventScope) =>
  scope.spaceId === null ? sql`` : sql`and (space_id is null or space_id = ${scope.spaceId})`;

const fromMicros = (sql: Db, micros: string) =>
  sql`(timestamptz 'epoch' + ${micros}::bigint * interval '1 microsecond')`;

/** A page of events, newest first, ordered by (at, id). */
export async function listEvents(
  sql: Db,
  scope: EventScope,
  filter: EventFilter,
  page: { limit: number; offset: number },
): Promise<PositionedEvent[]> {
  return sql<PositionedEvent[]>`
    select ${columns(sql)} from events
    where true ${scoped(sql, scope)}
      ${filter.since ? sql`and at >= ${filter.since}` : sql``}
      ${filter.until ? sql`and at < ${filter.until}` : sql``}
      ${filter.kindPatterns?.length ? sql`and kind like any(${filter.kindPatterns}::text[])` : sql``}
      ${filter.subject ? sql`and subject_type = ${filter.subject.type} and subject_id = ${filter.subject.id}` : sql``}
      ${filter.q ? sql`and search @@ websearch_to_tsquery('english', ${filter.q})` : sql``}
      ${
        filter.before
          ? sql`and (at, id) < (${fromMicros(sql, filter.before.atMicros)}, ${filter.before.id}::bigint)`
          : sql``
      }
    order by at desc, id desc
    limit ${page.limit} offset ${page.offset}`;
}

/**
 * Events from `from` up to `to` (not included), oldest first: the timeline around a moment, or a routine's period
 * since its last run.
 */
export async function eventsBetween(
  sql: Db,
  scope: EventScope,
  from: Date,
  to: Date,
  limit: number,
): Promise<EventRow[]> {
  return sql<EventRow[]>`
    select ${columns(sql)} from events
    where at >= ${from} and at < ${to} ${scoped(sql, scope)}
    order by at, id
    limit ${limit}`;
}

/** The events of these ids (what a follower was told of), oldest first. */
export async function eventsByIds(sql: Db, ids: string[]): Promise<EventRow[]> {
  return sql<EventRow[]>`
    select ${columns(sql)} from events where id = any(${ids}::bigint[]) order by at, id`;
}

/** Deletes the events older than `days`; how many. */
export async function purgeEvents(sql: Db, days: number): Promise<number> {
  const deleted = await sql`delete from events where at < now() - make_interval(days => ${days})`;
  return deleted.count;
}
