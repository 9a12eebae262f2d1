// Timeline events as a list, shared by the Timeline screen and the screens that show their own subjects' events
// (Services, a device's detail): each row says what happened, when and by whom, opens its subject's screen, and can
// ask what else changed around that moment.
import { api, ok } from '../client.ts';
import { useData } from '../data.ts';
import { ago, dateTime } from '../lib.ts';
import type { Agent, TimelineEvent } from '../types.ts';
import { useAgents } from './author.ts';

type Agents = Map<string, Agent>;

const severityBadge: Record<TimelineEvent['severity'], string> = {
  info: '',
  notice: 'info',
  warning: 'warning',
  critical: 'danger',
};

/** The screen an event's subject lives on, or null when it has none in the app. */
export function subjectPath(subject: TimelineEvent['subject']): string | null {
  if (!subject) return null;
  const id = encodeURIComponent(subject.id);
  switch (subject.type) {
    case 'service':
      return '/services';
    case 'device':
      return '/devices';
    case 'speedtest':
      return '/speed';
    case 'pending_change':
    case 'pending_action':
      return '/approvals';
    case 'capture':
      return '/capture';
    case 'conversation':
      return '/assistant';
    case 'page':
      return `/knowledge/page/${id}`;
    case 'task':
      return `/knowledge/task/${id}`;
    case 'project':
      return `/knowledge/project/${id}`;
    case 'resource':
      return `/knowledge/resource/${id}`;
    case 'ref':
      return `/knowledge/ref/${id}`;
    case 'source_doc':
      return `/knowledge/doc/${id}`;
    case 'maintenance':
    case 'alert':
      return '/settings';
    case 'incident':
      return '/incidents';
    default:
      return null;
  }
}

/** Who did it, in words: the owner, the hub, or the agent by name where known. */
export function actorName(actor: string, agents: Agents): string {
  if (actor === 'owner') return 'Owner';
  if (actor === 'system') return 'the hub';
  return agents.get(actor)?.display_name ?? 'a deleted agent';
}

export function EventItem({
  event,
  agents,
  onAround,
}: {
  event: TimelineEvent;
  agents: Agents;
  onAround?: (event: TimelineEvent) => void;
}) {
  const path = subjectPath(event.subject);
  return (
    <li data-kind={event.kind}>
      <time dateTime={event.at} title={dateTime(event.at)} class="muted small">
        {ago(event.at)}
      </time>
      <div>
        {path ? <a href={path}>{event.title}</a> : <span>{event.title}</span>}
        <div class="muted small">
          {event.kind} · {actorName(event.actor, agents)}
        </div>
      </div>
      {/* The badge's cell stays for info too, so the buttons line up. */}
      {event.severity === 'info' ? (
        <span />
      ) : (
        <span class={`badge ${severityBadge[event.severity]}`}>{event.severity}</span>
      )}
      {onAround && (
        <button type="button" class="ghost small" onClick={() => onAround(event)}>
          Around here
        </button>
      )}
    </li>
  );
}

/** The latest events of one subject (`service:<id>`) or of some kinds (`service.*`), with a link to all of them. */
export function SubjectEvents({
  subject,
  kinds,
  heading = 'Events',
  limit = 10,
}: {
  subject?: string;
  kinds?: string;
  heading?: string;
  limit?: number;
}) {
  const events = useData(
    () =>
      ok(
        api.GET('/api/timeline', {
          params: { query: { limit, ...(subject ? { subject } : {}), ...(kinds ? { kinds } : {}) } },
        }),
      ),
    [subject, kinds, limit],
    { every: 30000 },
  );
  const agents = useAgents();
  const items = events.data?.items ?? [];
  const more = new URLSearchParams({ ...(subject ? { subject } : {}), ...(kinds ? { kinds } : {}) });
  return (
    <section class="subject-events" aria-label={heading}>
      <div class="panel-head">
        <h3>{heading}</h3>
        <a class="small" href={`/timeline?${more}`}>
          All in the timeline
        </a>
      </div>
      {items.length === 0 ? (
        <p class="muted small">{events.loading ? 'Loading…' : 'Nothing recorded yet.'}</p>
      ) : (
        <ul class="event-list">
          {items.map((event) => (
            <EventItem key={event.id} event={event} agents={agents} />
          ))}
        </ul>
      )}
    </section>
  );
}
