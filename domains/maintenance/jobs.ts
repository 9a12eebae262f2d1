// maintenance.announce, every minute: for each window with notify_start_end, raises maintenance.started when one of
// its occurrences has begun and maintenance.ended once it is over. The occurrence announced is kept on the window
// (announced_start), so each start and end is raised once, even with two runs at once.
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { raiseAlert } from '../alerts/raise.ts';
import { announceMaintenanceTask } from './schema.ts';
import { listWindows, markAnnounced, servicesOnResources, type WindowRow } from './store.ts';
import { occurrenceAt } from './windows.ts';

async function alertOf(deps: JobDeps, window: WindowRow, event: 'started' | 'ended', ends: Date | null) {
  const affected = [
    ...new Set([...window.service_ids, ...(await servicesOnResources(deps.sql, window.resource_ids))]),
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

/** One pass over the windows at `now`: the starts and ends not yet announced. */
export async function announceMaintenance(deps: JobDeps, now: Date = new Date()) {
  let raised = 0;
  for (const window of await listWindows(deps.sql)) {
    if (!window.notify_start_end) continue;
    const occurrence = occurrenceAt(window, now);
    const announced = window.announced_start;
    if (announced && announced.getTime() !== occurrence?.starts_at.getTime()) {
      if (await markAnnounced(deps.sql, window.id, announced, null)) {
        await raiseAlert(deps.sql, deps, await alertOf(deps, window, 'ended', null));
        raised++;
      }
    }
    if (occurrence && announced?.getTime() !== occurrence.starts_at.getTime()) {
      if (await markAnnounced(deps.sql, window.id, null, occurrence.starts_at)) {
        await raiseAlert(deps.sql, deps, await alertOf(deps, window, 'started', occurrence.ends_at));
        raised++;
      }
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
