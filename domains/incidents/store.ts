// Incidents and the follower's place on the timeline (migration 0044).
import type { Db } from '../../lib/db.ts';
import type { CommitPosition } from '../timeline/read.ts';
import type { IncidentEvent, IncidentMember, IncidentState, IncidentSubject } from './schema.ts';

export interface IncidentRow {
  id: string;
  title: string;
  state: IncidentState;
  opened_at: Date;
  resolved_at: Date | null;
  root: IncidentSubject;
  members: IncidentMember[];
  events: IncidentEvent[];
  page_id: string | null;
}

const columns = (sql: Db) =>
  sql`id, title, state, opened_at, resolved_at, root, members, events, page_id::text as page_id`;

/** The follower's watermark, locked: one run reads the timeline at a time, the others wait for it. */
export async function lockWatermark(sql: Db): Promise<CommitPosition> {
  const [row] = await sql<CommitPosition[]>`
    select last_event_tx::text as tx, last_event_id::text as id from incidents_follower for update`;
  return row;
}

export async function setWatermark(sql: Db, position: CommitPosition): Promise<void> {
  await sql`
    update incidents_follower set last_event_tx = ${position.tx}::xid8, last_event_id = ${position.id}::bigint`;
}

/** The open incidents with `subject` as their root or among their members. */
export async function openIncidentsWith(
  sql: Db,
  subject: { type: string; id: string },
): Promise<IncidentRow[]> {
  const member = sql.json([{ type: subject.type, id: subject.id }] as never);
  return sql<IncidentRow[]>`
    select ${columns(sql)} from incidents
    where state = 'open'
      and ((root ->> 'type' = ${subject.type} and root ->> 'id' = ${subject.id}) or members @> ${member})
    order by opened_at
    for update`;
}

export async function insertIncident(
  sql: Db,
  incident: Pick<IncidentRow, 'title' | 'opened_at' | 'root' | 'members' | 'events'>,
): Promise<IncidentRow> {
  const [row] = await sql<IncidentRow[]>`
    insert into incidents (title, opened_at, root, members, events)
    values (${incident.title}, ${incident.opened_at}, ${sql.json(incident.root as never)},
            ${sql.json(incident.members as never)}, ${sql.json(incident.events as never)})
    returning ${columns(sql)}`;
  return row;
}

export async function saveIncident(
  sql: Db,
  incident: Pick<IncidentRow, 'id' | 'title' | 'state' | 'resolved_at' | 'members' | 'events' | 'page_id'>,
): Promise<IncidentRow> {
  const [row] = await sql<IncidentRow[]>`
    update incidents set title = ${incident.title}, state = ${incident.state}, resolved_at = ${incident.resolved_at},
      members = ${sql.json(incident.members as never)}, events = ${sql.json(incident.events as never)},
      page_id = ${incident.page_id}, updated_at = now()
    where id = ${incident.id}
    returning ${columns(sql)}`;
  return row;
}

export async function findIncident(sql: Db, id: string, lock = false): Promise<IncidentRow | undefined> {
  const [row] = await sql<IncidentRow[]>`
    select ${columns(sql)} from incidents where id = ${id} ${lock ? sql`for update` : sql``}`;
  return row;
}

/** Open ones first (newest first), then the resolved, newest first. */
export async function listIncidents(
  sql: Db,
  filter: { state?: IncidentState; limit: number; offset: number },
): Promise<{ items: IncidentRow[]; total: number }> {
  const where = filter.state ? sql`where state = ${filter.state}` : sql``;
  const items = await sql<IncidentRow[]>`
    select ${columns(sql)} from incidents ${where}
    order by state = 'open' desc, opened_at desc, id limit ${filter.limit} offset ${filter.offset}`;
  const [{ count }] = await sql<{ count: number }[]>`select count(*)::int as count from incidents ${where}`;
  return { items, total: count };
}
