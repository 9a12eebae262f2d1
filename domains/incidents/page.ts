// Each incident's page, in the "Incidents" space (made on first use): what happened, what it affected, its events and
// the owner's runbooks for the services in it (pages the hub's search finds for their names and brands, outside the
// Incidents space). Written through the page entity handler like any edit, so the page's history keeps each version.
// Rewritten when the incident joins or resolves, from the top down to the "Resolution" heading: what the owner wrote
// under it is kept as it is.
import type { Db } from '../../lib/db.ts';
import type { Principal } from '../../plugins/auth.ts';
import { applyEntityWriteIn } from '../entities/registry.ts';
import { found } from '../health/services.ts';
import { pageHandler } from '../pages/entity.ts';
import { findPage } from '../pages/read.ts';
import { searchAs } from '../search/scoped.ts';
import { ensureSpaceNamed } from '../spaces/named.ts';
import type { IncidentSubject } from './schema.ts';
import { type IncidentRow, saveIncident } from './store.ts';

export const incidentsSpaceName = 'Incidents';
export const resolutionHeading = '## Resolution';

/** The hub writes its pages as the owner would (the page history names the owner as their author). */
const hub: Principal = { kind: 'owner', via: 'token' };
const entities = { page: pageHandler };

export interface Runbook {
  id: string;
  title: string;
}

/** The words a service's runbooks are found by: its name, and its brand (the icon's) when it has one. */
async function searchTerms(tx: Db, subject: IncidentSubject): Promise<string[]> {
  if (subject.type !== 'service') return [];
  const terms = [subject.name];
  try {
    const service = await found(tx, subject.id);
    const brand = service.icon?.startsWith('brand:') ? service.icon.slice('brand:'.length) : null;
    if (brand && !subject.name.toLowerCase().includes(brand.toLowerCase())) terms.push(brand);
  } catch {
    // Deleted since: its name is all there is.
  }
  return terms;
}

/** Pages about the services in it, best first, never the Incidents space's own. */
export async function runbooksFor(tx: Db, incident: IncidentRow, spaceId: string): Promise<Runbook[]> {
  const runbooks = new Map<string, Runbook>();
  for (const member of incident.members) {
    for (const term of await searchTerms(tx, member)) {
      const hits = await searchAs(tx, hub, { q: term, kinds: 'pages', limit: 5, offset: 0 });
      for (const hit of hits.items) {
        if (hit.kind === 'pages' && hit.space_id !== spaceId)
          runbooks.set(hit.id, { id: hit.id, title: hit.title });
      }
    }
  }
  return [...runbooks.values()].slice(0, 10);
}

const minutes = (seconds: number) =>
  seconds < 60
    ? `${seconds} s`
    : seconds < 3600
      ? `${Math.round(seconds / 60)} min`
      : `${(seconds / 3600).toFixed(1)} h`;

/** The part of the page the hub keeps, above the Resolution heading. */
export function incidentBody(incident: IncidentRow, runbooks: readonly Runbook[]): string {
  const opened = new Date(incident.opened_at).toISOString();
  const state =
    incident.state === 'open'
      ? `**Open** since ${opened}`
      : `**Resolved** at ${(incident.resolved_at as Date).toISOString()}, after ${minutes(
          Math.round(
            ((incident.resolved_at as Date).getTime() - new Date(incident.opened_at).getTime()) / 1000,
          ),
        )} (opened ${opened})`;
  const affected = incident.members.map(
    (member) => `- ${member.name} (${member.type}): ${member.failing ? 'failing' : 'recovered'}`,
  );
  const events = incident.events.map((event) => `- ${event.at} · ${event.kind} · ${event.title}`);
  const links = runbooks.length
    ? runbooks.map((runbook) => `- [${runbook.title}](/knowledge/page/${runbook.id})`)
    : ['- No page mentions these services yet.'];
  return [
    `_Kept by the hub: everything above "Resolution" is rewritten as the incident changes; write yours under it._`,
    '',
    state,
    '',
    `Root cause: ${incident.root.name} (${incident.root.type})`,
    '',
    '## Affected',
    ...affected,
    '',
    '## Events',
    ...events,
    '',
    '## Runbooks',
    ...links,
    '',
  ].join('\n');
}

/** The owner's part of a page: from the Resolution heading on (the heading alone when there is none). */
export function resolutionPart(body: string): string {
  const at = body.search(/^## Resolution[ \t]*$/m);
  return at === -1 ? `${resolutionHeading}\n` : body.slice(at);
}

/** The resolution's text under its heading. */
export function withResolution(text: string): string {
  return `${resolutionHeading}\n\n${text.trim()}\n`;
}

/**
 * Creates or rewrites the incident's page (a resolution given replaces what is under the heading). Answers the
 * incident with its page.
 */
export async function writeIncidentPage(
  tx: Db,
  incident: IncidentRow,
  resolution?: string,
): Promise<IncidentRow> {
  const spaceId = await ensureSpaceNamed(
    tx,
    incidentsSpaceName,
    'Incidents the hub opened: what happened, what it affected, and how it was resolved',
  );
  const top = incidentBody(incident, await runbooksFor(tx, incident, spaceId));
  const current = incident.page_id ? await findPage(tx, incident.page_id) : undefined;
  const owners = resolution !== undefined ? withResolution(resolution) : resolutionPart(current?.body ?? '');
  const body = `${top}\n${owners}`;
  const title = `Incident: ${incident.title}`.slice(0, 200);
  if (current) {
    if (current.body === body && current.title === title) return incident;
    await applyEntityWriteIn(
      tx,
      { entity_type: 'page', action: 'update', entity_id: current.id, payload: { title, body } },
      { entities, principal: hub },
    );
    return incident;
  }
  const created = await applyEntityWriteIn(
    tx,
    {
      entity_type: 'page',
      action: 'create',
      payload: { space_id: spaceId, title, body, tags: ['incident'] },
    },
    { entities, principal: hub },
  );
  return saveIncident(tx, { ...incident, page_id: created.entity_id });
}
