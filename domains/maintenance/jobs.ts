// maintenance.announce, every minute: for each window, records maintenance.started on the timeline when one of its
// occurrences has begun and maintenance.ended once it is over, and raises them as alerts where the window asks
// (notify_start_end). The occurrence announced is kept on the window (announced_start), so each start and end is
// recorded and raised once, even with two runs at once.
import type { Db } from '../../lib/db.ts';
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { raiseAlert } from '../alerts/raise.ts';
import { recordEvent } from '../timeline/record.ts';
import { announceMaintenanceTask } from './schema.ts';
import { listWindows, markAnnounced, servicesOnResources, type WindowRow } from './store.ts';
import { occurrenceAt } from './windows.ts';

async function alertOf(sql: Db, window: WindowRow, event: 'started' | 'ended', ends: Date | null) {
  const affected = [
    ...new Set([...window.service_ids, ...(await servicesOnResources(sql, window.resource_ids))]),
  ];
  return {
    event: `maintenance.${event}`,
    title: event === 'started' ? `Maintenance: ${window.title}` : `Maintenance over: ${window.title}`,
    message:
      event === 'started'
        ? `${window.title} has begun${ends ? ` and lasts until ${ends.toISOString()}` : ''}; ` +
          `${affected.length} service(s) raise no alerts meanwhile.`
        : `${window.title} has ended; alerts of its ${affected.length} service(s) resume.`,
    tags: ['construction', `maintenance-${event}`],
    // The owner asked for these (notify_start_end): at the default rule's priority, so they are sent.
    priority: 4,
    link: '/services',
    data: { maintenance_id: window.id, title: window.title, affected_service_ids: affected },
  };
}

/**
 * Moves the window's announced occurrence from `from` to `to` and, if this run did it, records the start or end on
 * the timeline and raises its alert where the window asks, all in one transaction. Whether an alert was raised.
 */
async function announce(
  deps: JobDeps,
  window: WindowRow,
  from: Date | null,
  to: Date | null,
  event: 'started' | 'ended',
  ends: Date | null,
): Promise<boolean> {
  return deps.sql.begin(async (tx) => {
    if (!(await markAnnounced(tx, window.id, from, to))) return false;
    const alert = await alertOf(tx, window, event, ends);
    await recordEvent(tx, {
      kind: alert.event,
      severity: 'notice',
      title: alert.title,
      subject: { type: 'maintenance', id: window.id },
      actor: 'system',
      data: { ...alert.data, ...(ends ? { ends_at: ends.toISOString() } : {}) },
    });
    if (!window.notify_start_end) return false;
    await raiseAlert(tx, deps, alert);
    return true;
  }) as Promise<boolean>;
}

/** One pass over the windows at `now`: the starts and ends not yet announced; how many alerts were raised. */
export async function announceMaintenance(deps: JobDeps, now: Date = new Date()) {
  let raised = 0;
  for (const window of await listWindows(deps.sql)) {
    const occurrence = occurrenceAt(window, now);
    const announced = window.announced_start;
    if (announced && announced.getTime() !== occurrence?.starts_at.getTime()) {
      if (await announce(deps, window, announced, null, 'ended', null)) raised++;
    }
    if (occurrence && announced?.getTime() !== occurrence.starts_at.getTime()) {
      if (await announce(deps, window, null, occurrence.starts_at, 'started', occurrence.ends_at)) raised++;
    }
  }
  return raised;
}

export const maintenanceTasks: DomainTask[] = [
  runs(announceMaintenanceTask, (deps) => async () => {
    await announceMaintenance(deps);
  }),
];

export const maintenanceCron: DomainCron = () => [
  cronItem({ id: 'maintenance.announce', task: announceMaintenanceTask, schedule: '* * * * *', payload: {} }),
];
