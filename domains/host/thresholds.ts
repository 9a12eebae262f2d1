// host.check (every minute): the host's CPU, memory and disk use against the alerts setting's thresholds. A figure
// at or over its threshold for host_minutes raises host.threshold (once); back under, host.normal resolves it. CPU
// is the average since the previous check (a first check samples over one second).
import { setTimeout as sleep } from 'node:timers/promises';
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { openProblems, type RaisedAlert, raiseAlert } from '../alerts/raise.ts';
import { readAlertSettings } from '../alerts/setting.ts';
import { type HostFigures, hostFigures, type RawSample, rawSample } from './metrics.ts';
import { hostCheckTask } from './schema.ts';
import { recordBreaches } from './store.ts';

interface Figure {
  metric: string;
  label: string;
  value: number;
  threshold: number;
}

/** The figures that have alert thresholds, from one set of host figures. */
export function thresholdFigures(
  figures: HostFigures,
  limits: { cpu: number; memory: number; disk: number },
): Figure[] {
  const list: Figure[] = [];
  if (figures.cpu_percent !== null) {
    list.push({ metric: 'cpu', label: 'CPU', value: figures.cpu_percent, threshold: limits.cpu });
  }
  if (figures.memory.percent !== null) {
    list.push({ metric: 'memory', label: 'Memory', value: figures.memory.percent, threshold: limits.memory });
  }
  for (const disk of figures.disks) {
    if (disk.percent === null) continue;
    list.push({
      metric: `disk:${disk.mount}`,
      label: `Disk ${disk.mount}`,
      value: disk.percent,
      threshold: limits.disk,
    });
  }
  return list;
}

const subjectOf = (metric: string) => `host:${metric}`;

/** Judges one set of figures: records what is over and raises what is due. Returns the alerts raised. */
export async function judgeHost(deps: JobDeps, figures: HostFigures): Promise<RaisedAlert[]> {
  return deps.sql.begin(async (tx) => {
    const settings = await readAlertSettings(tx);
    const all = thresholdFigures(figures, {
      cpu: settings.host_cpu_percent,
      memory: settings.host_memory_percent,
      disk: settings.host_disk_percent,
    });
    const over = all.filter((figure) => figure.value >= figure.threshold);
    const breaches = await recordBreaches(tx, over);
    const open = await openProblems(tx, 'host:');
    const raised: RaisedAlert[] = [];
    for (const figure of all) {
      const subject = subjectOf(figure.metric);
      const breach = breaches.find((entry) => entry.metric === figure.metric);
      const data = { metric: figure.metric, value: figure.value, threshold: figure.threshold };
      if (breach && breach.over_minutes >= settings.host_minutes && !open.has(subject)) {
        raised.push({
          event: 'host.threshold',
          title: `${figure.label} of the host at ${figure.value}%`,
          message:
            `${figure.label} use has been at or over ${figure.threshold}% for ${Math.floor(breach.over_minutes)} ` +
            `min (now ${figure.value}%).`,
          tags: ['warning', 'host'],
          priority: 4,
          link: '/',
          data: { ...data, over_minutes: Math.floor(breach.over_minutes) },
          subject,
        });
      } else if (!breach && open.has(subject)) {
        raised.push({
          event: 'host.normal',
          title: `${figure.label} of the host back to ${figure.value}%`,
          message: `${figure.label} use is under ${figure.threshold}% again (now ${figure.value}%).`,
          tags: ['white_check_mark', 'host'],
          priority: 3,
          link: '/',
          data,
          subject,
          resolves: true,
        });
      }
    }
    for (const alert of raised) await raiseAlert(tx, deps, alert);
    return raised;
  });
}

export const hostTasks: DomainTask[] = [
  runs(hostCheckTask, (deps) => {
    const { proc, sys, mounts } = deps.config.dashboard.host;
    // The previous check's sample: CPU is averaged over the minute between checks, not a single second.
    let previous: RawSample | null = null;
    return async (_payload, helpers) => {
      let figures: HostFigures;
      try {
        let before = previous;
        if (!before) {
          before = await rawSample(proc);
          await sleep(1000);
        }
        const now = await rawSample(proc);
        previous = now;
        figures = await hostFigures({ proc, sys, mounts }, before, now);
      } catch (error) {
        // Unreadable figures are the host card's to show (502 HOST_METRICS_UNAVAILABLE), not a failed job a minute.
        helpers.logger.warn(`host.check: the host figures cannot be read: ${(error as Error).message}`);
        return;
      }
      await judgeHost(deps, figures);
    };
  }),
];

export const hostCron: DomainCron = () => [
  cronItem({ id: 'host.check', task: hostCheckTask, schedule: '* * * * *', payload: {} }),
];
