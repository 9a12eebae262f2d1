// The follower: reads the timeline from its watermark and turns events into incidents. A service down, a certificate
// expired, a backup failed or storage at ATTENTION opens an incident for its root cause (a service's root from the
// health dependency graph, as it stands when the event is read), or joins the open one of that root; a recovery
// marks its subject recovered, and the incident is resolved when nothing in it fails any more. The domains that fail
// know nothing of this: their events queue a run (migration 0044's trigger), and a minute cron catches up.
// One run at a time: the watermark row is locked for the run, and everything it does commits with the watermark.
import type { Db, Sql } from '../../lib/db.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { outageRootOf } from '../health/outage.ts';
import { readSetting } from '../settings/registry.ts';
import {
  type CommittedEvent,
  type EventRow,
  eventsCommittedAfter,
  eventsWaitingAfter,
} from '../timeline/read.ts';
import { recordEvent } from '../timeline/record.ts';
import { writeIncidentPage } from './page.ts';
import {
  type IncidentMember,
  type IncidentSubject,
  incidentsDiagnoseTask,
  incidentsFollowTask,
} from './schema.ts';
import { diagnosisAgentSetting } from './setting.ts';
import {
  type IncidentRow,
  insertIncident,
  lockWatermark,
  openIncidentsWith,
  saveIncident,
  setWatermark,
} from './store.ts';

/** What an event says of its subject: failing (may open an incident) or recovered. */
interface Effect {
  subject: IncidentSubject;
  failing: boolean;
}

const failingKinds = ['service.down', 'certificate.expired', 'backup.failed', 'storage.attention'];
const recoveringKinds = [
  'service.up',
  'service.degraded',
  'service.warning',
  'service.paused',
  'backup.ingested',
  'backup.succeeded',
  'storage.watch',
  'storage.healthy',
];
/** The kinds read (migration 0044's trigger queues a run on the same). */
export const followedKinds = [...failingKinds, ...recoveringKinds];

function nameOf(event: EventRow): string {
  const data = event.data as { service?: string; target?: string };
  if (event.subject_type === 'service') return data.service ?? (event.subject_id as string);
  if (event.subject_type === 'backup')
    return event.subject_id === 'hub' ? 'the hub’s backup' : `backup to ${event.subject_id}`;
  if (event.subject_type === 'storage') return `${event.subject_id} storage`;
  return `${event.subject_type} ${event.subject_id}`;
}

export function effectOf(event: EventRow): Effect | null {
  if (!event.subject_type || !event.subject_id) return null;
  const subject = { type: event.subject_type, id: event.subject_id, name: nameOf(event) };
  if (failingKinds.includes(event.kind)) return { subject, failing: true };
  // A partial run still has guests that failed: not yet well.
  if (event.kind === 'backup.ingested' && event.data.status !== 'ok') return null;
  return recoveringKinds.includes(event.kind) ? { subject, failing: false } : null;
}

const same = (a: { type: string; id: string }, b: { type: string; id: string }) =>
  a.type === b.type && a.id === b.id;

function summary(event: EventRow) {
  return {
    id: event.id,
    at: new Date(event.at).toISOString(),
    kind: event.kind,
    title: event.title,
    severity: event.severity,
  };
}

/** Marks `subject` failing or recovered in the member list (added when new). */
function withMember(members: IncidentMember[], subject: IncidentSubject, failing: boolean): IncidentMember[] {
  const found = members.some((member) => same(member, subject));
  return found
    ? members.map((member) => (same(member, subject) ? { ...member, failing } : member))
    : [...members, { ...subject, failing }];
}

/** The root cause of a failing subject: for a service, the root of its outage; anything else is its own. */
async function rootOf(tx: Db, subject: IncidentSubject): Promise<IncidentSubject> {
  if (subject.type !== 'service') return subject;
  const root = await outageRootOf(tx, subject.id);
  return root ? { type: 'service', ...root } : subject;
}

export function durationSeconds(incident: Pick<IncidentRow, 'opened_at' | 'resolved_at'>): number | null {
  if (!incident.resolved_at) return null;
  return Math.round((incident.resolved_at.getTime() - new Date(incident.opened_at).getTime()) / 1000);
}

/** Resolves an incident (nothing fails, or the owner says so), with its event on the timeline; not its page. */
export async function resolveIncident(tx: Db, incident: IncidentRow, at: Date, actor: 'owner' | 'system') {
  const resolved = await saveIncident(tx, { ...incident, state: 'resolved', resolved_at: at });
  const duration_s = durationSeconds(resolved);
  await recordEvent(tx, {
    kind: 'incident.resolved',
    title: `Incident resolved: ${resolved.title}`,
    severity: 'notice',
    subject: { type: 'incident', id: resolved.id },
    actor,
    data: { incident_id: resolved.id, root: resolved.root, duration_s },
  });
  return resolved;
}

async function fail(tx: Db, event: EventRow, subject: IncidentSubject): Promise<void> {
  const root = await rootOf(tx, subject);
  const [incident] = [...(await openIncidentsWith(tx, root)), ...(await openIncidentsWith(tx, subject))];
  if (incident) {
    let members = withMember(incident.members, subject, true);
    if (!members.some((member) => same(member, root))) members = withMember(members, root, true);
    const joined = await saveIncident(tx, {
      ...incident,
      members,
      events: [...incident.events, summary(event)],
    });
    await writeIncidentPage(tx, joined);
    return;
  }
  const title = subject.type === 'service' ? `${root.name} is down` : event.title;
  const members = same(root, subject)
    ? [{ ...subject, failing: true }]
    : [
        { ...root, failing: true },
        { ...subject, failing: true },
      ];
  const opened = await insertIncident(tx, {
    title: title.slice(0, 200),
    opened_at: new Date(event.at),
    root,
    members,
    events: [summary(event)],
  });
  await recordEvent(tx, {
    kind: 'incident.opened',
    title: `Incident opened: ${opened.title}`,
    severity: 'critical',
    subject: { type: 'incident', id: opened.id },
    data: {
      incident_id: opened.id,
      root,
      affected: members.map(({ type, id, name }) => ({ type, id, name })),
    },
  });
  await writeIncidentPage(tx, opened);
  await requestDiagnosis(tx, opened.id);
}

async function recover(tx: Db, event: EventRow, subject: IncidentSubject): Promise<void> {
  for (const incident of await openIncidentsWith(tx, subject)) {
    const members = withMember(incident.members, subject, false);
    const updated = { ...incident, members, events: [...incident.events, summary(event)] };
    if (members.some((member) => member.failing)) {
      await writeIncidentPage(tx, await saveIncident(tx, updated));
    } else {
      await writeIncidentPage(tx, await resolveIncident(tx, updated, new Date(event.at), 'system'));
    }
  }
}

/**
 * One run: every followed event past the watermark, in commit order (an event waits for a later run while a
 * transaction older than its own is still running, so one committing late is never passed over). Answers how many were read.
 */
export async function followTimeline(sql: Sql): Promise<number> {
  return sql.begin(async (tx) => {
    let after = await lockWatermark(tx);
    let read = 0;
    for (;;) {
      const events = await eventsCommittedAfter(tx, after, { kinds: followedKinds, limit: 200 });
      for (const event of events) {
        const effect = effectOf(event);
        if (effect?.failing) await fail(tx, event, effect.subject);
        else if (effect) await recover(tx, event, effect.subject);
      }
      read += events.length;
      if (events.length === 0) break;
      const last = events.at(-1) as CommittedEvent;
      after = { tx: last.tx, id: last.id };
      await setWatermark(tx, after);
    }
    // Events that wait for an older transaction get a run of their own soon after (their own queued run may have
    // been this one), rather than at the minute's safety net.
    if (await eventsWaitingAfter(tx, after, { kinds: followedKinds })) {
      await enqueue(
        tx,
        incidentsFollowTask,
        {},
        { jobKey: incidentsFollowTask.name, runAt: new Date(Date.now() + 5_000) },
      );
    }
    return read;
  });
}

/** In the transaction that opens an incident: its diagnosis is asked for when an agent is configured. */
async function requestDiagnosis(tx: Db, incidentId: string): Promise<void> {
  if ((await readSetting(tx, diagnosisAgentSetting)) === null) return;
  await enqueue(tx, incidentsDiagnoseTask, { incident_id: incidentId });
}
