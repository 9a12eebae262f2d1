// Incidents as the API and agents see them, and the owner's changes: a title, a resolution by hand, a resolution
// written into the page.

import type { Db, Sql } from '../../lib/db.ts';
import { hubError } from '../../lib/errors.ts';
import { findPage } from '../pages/read.ts';
import { durationSeconds, resolveIncident } from './follow.ts';
import { writeIncidentPage } from './page.ts';
import type { Incident, IncidentQuery, UpdateIncident } from './schema.ts';
import { findIncident, type IncidentRow, listIncidents, saveIncident } from './store.ts';

export function present(row: IncidentRow): Incident {
  const isRoot = (member: { type: string; id: string }) =>
    member.type === row.root.type && member.id === row.root.id;
  return {
    id: row.id,
    title: row.title,
    state: row.state,
    opened_at: row.opened_at,
    resolved_at: row.resolved_at,
    duration_s: durationSeconds(row),
    root: row.members.find(isRoot) ?? { ...row.root, failing: row.state === 'open' },
    affected: row.members.filter((member) => !isRoot(member)),
    events: row.events,
    page_id: row.page_id,
  };
}

export async function incidentList(sql: Db, query: IncidentQuery) {
  const { items, total } = await listIncidents(sql, query);
  return { items: items.map(present), total, limit: query.limit, offset: query.offset };
}

export async function incident(sql: Db, id: string): Promise<Incident> {
  const row = await findIncident(sql, id);
  if (!row) throw hubError('INCIDENT_NOT_FOUND', id);
  return present(row);
}

/** What an agent asked about an incident sees: the incident, and its page as it reads now. */
export async function incidentView(sql: Db, id: string) {
  const found = await incident(sql, id);
  const page = found.page_id ? await findPage(sql, found.page_id) : undefined;
  return { incident: found, page: page ? { id: page.id, title: page.title, body: page.body } : null };
}

export async function changeIncident(sql: Sql, id: string, patch: UpdateIncident): Promise<Incident> {
  const row = await sql.begin(async (tx) => {
    let current = await findIncident(tx, id, true);
    if (!current) throw hubError('INCIDENT_NOT_FOUND', id);
    if (patch.title !== undefined) current = await saveIncident(tx, { ...current, title: patch.title });
    if (patch.state === 'resolved' && current.state === 'open') {
      current = await resolveIncident(tx, current, new Date(), 'owner');
    }
    return writeIncidentPage(tx, current, patch.resolution);
  });
  return present(row);
}
