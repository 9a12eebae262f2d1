// Reading the timeline, shared by the REST routes and the tool: newest first, paged by an opaque cursor over the
// position (at, id), filtered by time, kinds (`area.*` patterns), subject and words; "around" a moment.
import { hubError } from '../../lib/errors.ts';
import type { Principal } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import { type AroundQuery, aroundLimit, type TimelineEvent, type TimelineQuery } from './schema.ts';
import { type EventRow, type EventScope, eventsBetween, listEvents } from './store.ts';

// What other domains read of the timeline: the events past the last one they have read, in commit order (a follower
// such as incidents), and a period's events (a routine's view).
export {
  type CommitPosition,
  type CommittedEvent,
  type EventRow,
  eventsBetween,
  eventsCommittedAfter,
  eventsWaitingAfter,
} from './store.ts';

/** A space-scoped agent reads its space's events and the global ones; the owner and other agents read all. */
export function scopeOf(principal: Principal | null): EventScope {
  return { spaceId: principal?.kind === 'agent' ? principal.spaceId : null };
}

export function present(row: EventRow): TimelineEvent {
  return {
    id: row.id,
    at: row.at,
    kind: row.kind,
    severity: row.severity as TimelineEvent['severity'],
    title: row.title,
    subject: row.subject_type && row.subject_id ? { type: row.subject_type, id: row.subject_id } : null,
    actor: row.actor,
    space_id: row.space_id,
    data: row.data,
  };
}

const encodeCursor = (atMicros: string, id: string) => Buffer.from(`${atMicros}.${id}`).toString('base64url');

function decodeCursor(cursor: string): { atMicros: string; id: string } {
  const match = /^(-?\d{1,18})\.(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw hubError('TIMELINE_CURSOR_INVALID');
  return { atMicros: match[1], id: match[2] };
}

/** `device.*` takes every kind of the area, `*` anything; a kind is matched as it is (its `_` is no wildcard). */
export function kindPatterns(kinds: string): string[] {
  return kinds
    .split(',')
    .filter(Boolean)
    .map((kind) => kind.replace(/[\\%_]/g, '\\$&').replace(/\*/g, '%'));
}

function subjectOf(subject: string): { type: string; id: string } {
  const colon = subject.indexOf(':');
  return { type: subject.slice(0, colon), id: subject.slice(colon + 1) };
}

export async function readTimeline(
  sql: Db,
  principal: Principal | null,
  query: TimelineQuery,
): Promise<{ items: TimelineEvent[]; next_cursor: string | null }> {
  const since = query.since ? new Date(query.since) : undefined;
  const until = query.until ? new Date(query.until) : undefined;
  if (since && until && since >= until) {
    throw hubError('TIMELINE_RANGE_INVALID', `since (${query.since}) must be before until (${query.until})`);
  }
  const rows = await listEvents(
    sql,
    scopeOf(principal),
    {
      since,
      until,
      kindPatterns: query.kinds ? kindPatterns(query.kinds) : undefined,
      subject: query.subject ? subjectOf(query.subject) : undefined,
      q: query.q,
      before: query.cursor ? decodeCursor(query.cursor) : undefined,
    },
    { limit: query.limit + 1, offset: query.offset },
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    items: page.map(present),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last.at_us, last.id) : null,
  };
}

/** Everything within ± minutes of a moment, oldest first. */
export async function readAround(sql: Db, principal: Principal | null, query: AroundQuery) {
  const at = new Date(query.at).getTime();
  const from = new Date(at - query.minutes * 60_000);
  const to = new Date(at + query.minutes * 60_000);
  // Both ends are within: the period read runs up to a millisecond past the last minute.
  const rows = await eventsBetween(
    sql,
    scopeOf(principal),
    from,
    new Date(to.getTime() + 1),
    aroundLimit + 1,
  );
  return {
    from,
    to,
    items: rows.slice(0, aroundLimit).map(present),
    truncated: rows.length > aroundLimit,
  };
}
