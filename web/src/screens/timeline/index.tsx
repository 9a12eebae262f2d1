// The ops timeline: the open incidents above what happened across the hub, newest first, filtered by kind, subject,
// time range and words; new events arrive live from the dashboard stream (an incident's opening or resolution
// refreshes the open ones); a click opens the subject's screen, and "Around here" shows everything that changed
// within half an hour of an event. Filters live in the address (?kinds=&subject=&q=), so
// other screens link here with theirs.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../client.ts';
import { useAgents } from '../../components/author.ts';
import { EventItem } from '../../components/Events.tsx';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { dateTime } from '../../lib.ts';
import { failed } from '../../state.ts';
import type { Agent, TimelineEvent } from '../../types.ts';
import { IncidentList } from '../incidents/IncidentList.tsx';

const kindChoices: [string, string][] = [
  ['', 'Everything'],
  ['service.*', 'Services'],
  ['device.*', 'Devices'],
  ['backup.*', 'Backups'],
  ['speedtest.*', 'Speed tests'],
  ['pending_change.*,pending_action.*', 'Approvals'],
  ['page.*,task.*,project.*,ref.*,resource.*,source_doc.*', 'Knowledge edits'],
  ['capture.*', 'Captures'],
  ['job.*', 'Jobs'],
  ['incident.*', 'Incidents'],
  ['alert.*', 'Alerts sent'],
  ['assistant.*', 'Assistant'],
  ['maintenance.*', 'Maintenance'],
];

interface Filters {
  kinds: string;
  subject: string;
  q: string;
  since: string;
  until: string;
}

/** A datetime-local value (local time, no zone) as an ISO moment, or nothing. */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : undefined);

function queryOf(filters: Filters) {
  return {
    ...(filters.kinds ? { kinds: filters.kinds } : {}),
    ...(filters.subject.includes(':') ? { subject: filters.subject } : {}),
    ...(filters.q.trim() ? { q: filters.q.trim() } : {}),
    ...(isoOf(filters.since) ? { since: isoOf(filters.since) } : {}),
    ...(isoOf(filters.until) ? { until: isoOf(filters.until) } : {}),
  };
}

/** Whether a live event belongs in the list as filtered (words and a closed range are left to the next read). */
function fits(event: TimelineEvent, filters: Filters): boolean {
  if (filters.q.trim() || filters.until) return false;
  if (filters.subject.includes(':')) {
    const [type, ...id] = filters.subject.split(':');
    if (event.subject?.type !== type || event.subject.id !== id.join(':')) return false;
  }
  if (!filters.kinds) return true;
  return filters.kinds
    .split(',')
    .some((pattern) =>
      pattern.endsWith('.*') ? event.kind.startsWith(pattern.slice(0, -1)) : event.kind === pattern,
    );
}

function Around({
  event,
  agents,
  onClose,
}: {
  event: TimelineEvent;
  agents: Map<string, Agent>;
  onClose: () => void;
}) {
  const around = useData(
    () => ok(api.GET('/api/timeline/around', { params: { query: { at: event.at, minutes: 30 } } })),
    [event.id],
  );
  return (
    <section class="panel" aria-label="Around here">
      <div class="panel-head">
        <h2>Around {dateTime(event.at)}</h2>
        <span class="muted small">± 30 minutes of “{event.title}”</span>
        <button type="button" class="ghost small" aria-label="Close" onClick={onClose}>
          <Icon name="x" size={14} />
        </button>
      </div>
      <ul class="event-list">
        {(around.data?.items ?? []).map((item) => (
          <EventItem key={item.id} event={item} agents={agents} />
        ))}
      </ul>
      {around.data?.truncated && <p class="muted small">More happened than is shown.</p>}
    </section>
  );
}

/** The incidents still open, each linking to its page; nothing when none is. `changed` reads them again. */
function OpenIncidents({ changed }: { changed: number }) {
  const open = useData(
    () => ok(api.GET('/api/incidents', { params: { query: { state: 'open', limit: 20 } } })),
    [changed],
  );
  if (!open.data || open.data.items.length === 0) return null;
  return (
    <section class="panel" aria-label="Open incidents">
      <div class="panel-head">
        <h2>Open incidents</h2>
        <a class="small" href="/incidents">
          All incidents
        </a>
      </div>
      <IncidentList items={open.data.items} empty="" />
    </section>
  );
}

export default function Timeline() {
  const { query } = useLocation();
  const filters = useSignal<Filters>({
    kinds: query.kinds ?? '',
    subject: query.subject ?? '',
    q: query.q ?? '',
    since: '',
    until: '',
  });
  const f = filters.value;
  const set = (change: Partial<Filters>) => (filters.value = { ...filters.value, ...change });
  const items = useSignal<TimelineEvent[]>([]);
  const cursor = useSignal<string | null>(null);
  const around = useSignal<TimelineEvent | null>(null);
  const incidentsChanged = useSignal(0);
  const agents = useAgents();
  const first = useData(
    () => ok(api.GET('/api/timeline', { params: { query: { limit: 50, ...queryOf(f) } } })),
    [f.kinds, f.subject, f.q, f.since, f.until],
  );
  useEffect(() => {
    items.value = first.data?.items ?? [];
    cursor.value = first.data?.next_cursor ?? null;
  }, [first.data]);

  // Live: each new event from the dashboard stream, at the top when it fits the filters.
  useEffect(() => {
    const stream = new EventSource('/api/dashboard/stream');
    stream.addEventListener('event', (message) => {
      const event = JSON.parse((message as MessageEvent<string>).data) as TimelineEvent;
      if (event.kind.startsWith('incident.')) incidentsChanged.value++;
      if (!fits(event, filters.value) || items.value.some((item) => item.id === event.id)) return;
      items.value = [event, ...items.value];
    });
    return () => stream.close();
  }, []);

  async function more() {
    if (!cursor.value) return;
    const page = await ok(
      api.GET('/api/timeline', { params: { query: { limit: 50, ...queryOf(f), cursor: cursor.value } } }),
    ).catch(failed);
    if (!page) return;
    items.value = [...items.value, ...page.items];
    cursor.value = page.next_cursor;
  }

  return (
    <div>
      <div class="page-head">
        <h1>Timeline</h1>
        <input
          class="filter"
          type="search"
          aria-label="Search the timeline"
          placeholder="Search…"
          value={f.q}
          onChange={(e) => set({ q: e.currentTarget.value })}
        />
      </div>
      <form class="panel timeline-filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Kind
          <select value={f.kinds} onChange={(e) => set({ kinds: e.currentTarget.value })}>
            {kindChoices.some(([value]) => value === f.kinds) ? null : (
              <option value={f.kinds}>{f.kinds}</option>
            )}
            {kindChoices.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Subject
          <input
            placeholder="service:… or device:…"
            value={f.subject}
            onChange={(e) => set({ subject: e.currentTarget.value.trim() })}
          />
        </label>
        <label>
          From
          <input
            type="datetime-local"
            value={f.since}
            onChange={(e) => set({ since: e.currentTarget.value })}
          />
        </label>
        <label>
          To
          <input
            type="datetime-local"
            value={f.until}
            onChange={(e) => set({ until: e.currentTarget.value })}
          />
        </label>
      </form>
      <OpenIncidents changed={incidentsChanged.value} />
      {around.value && <Around event={around.value} agents={agents} onClose={() => (around.value = null)} />}
      <section class="panel" aria-label="Events">
        {items.value.length === 0 ? (
          <p class="muted empty">
            {first.loading ? 'Loading…' : 'Nothing happened that fits these filters.'}
          </p>
        ) : (
          <ul class="event-list">
            {items.value.map((event) => (
              <EventItem key={event.id} event={event} agents={agents} onAround={(e) => (around.value = e)} />
            ))}
          </ul>
        )}
        {cursor.value && (
          <button type="button" class="small" onClick={more}>
            Older events
          </button>
        )}
      </section>
    </div>
  );
}
