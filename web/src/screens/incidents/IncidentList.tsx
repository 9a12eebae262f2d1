// Incidents as a list, open first: each one's state, title, what it affected, when and for how long, and a link to
// its page. Shown on the Incidents screen and in the dashboard's incidents card.
import type { components } from '../../api.d.ts';
import { ago, dateTime } from '../../lib.ts';

export type Incident = components['schemas']['Incident'];

/** A duration in words: "45 s", "12 min", "3 h 5 min". */
export function lasted(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function affectedText(incident: Incident): string {
  const failing = incident.affected.filter((member) => member.failing).length;
  if (incident.affected.length === 0) return incident.root.name;
  return `${incident.root.name} and ${incident.affected.length} more${failing ? ` (${failing} failing)` : ''}`;
}

export function IncidentList({ items, empty }: { items: readonly Incident[]; empty: string }) {
  if (items.length === 0) return <p class="muted empty">{empty}</p>;
  // The API answers open ones first; kept so whatever gave the list.
  const ordered = [...items].sort((a, b) => Number(b.state === 'open') - Number(a.state === 'open'));
  return (
    <ul class="card-list incident-list" aria-label="Incidents">
      {ordered.map((incident) => (
        <li key={incident.id} data-incident-id={incident.id}>
          <span class={`badge ${incident.state === 'open' ? 'danger' : 'success'}`}>{incident.state}</span>
          {incident.page_id ? (
            <a href={`/knowledge/page/${incident.page_id}`}>{incident.title}</a>
          ) : (
            <span>{incident.title}</span>
          )}
          <span class="muted small">{affectedText(incident)}</span>
          <span class="muted small" title={dateTime(String(incident.opened_at))}>
            {incident.state === 'open'
              ? `since ${ago(String(incident.opened_at))}`
              : `lasted ${lasted(incident.duration_s ?? 0)}`}
          </span>
        </li>
      ))}
    </ul>
  );
}
