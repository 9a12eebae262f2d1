// storage.check (every 5 minutes, while Proxmox is configured): the storage roll-up (storage.ts) turned into alerts
// when it changes: storage.watch on WATCH, storage.attention on ATTENTION, storage.healthy (resolving) back at
// HEALTHY. The open problem on the `storage:proxmox` subject remembers what was last raised, so a state is alerted
// once however many checks find it.
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { openProblems, type RaisedAlert, raiseAlert } from '../alerts/raise.ts';
import { dashboardSetting } from '../dashboard/setting.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { readSetting } from '../settings/registry.ts';
import { recordEvent } from '../timeline/record.ts';
import { pveClient } from './client.ts';
import { storageCheckTask } from './schema.ts';
import { readStorage } from './storage.ts';

type Storage = Awaited<ReturnType<typeof readStorage>>;
const subject = 'storage:proxmox';

/** The alert a roll-up calls for, given the event raised last (null: nothing open); null when nothing changed. */
export function storageAlert(storage: Storage, last: string | null): RaisedAlert | null {
  const findings = storage.reasons.map((reason) => `- ${reason.level} ${reason.subject}: ${reason.finding}`);
  const data = { status: storage.status, reasons: storage.reasons };
  if (storage.status === 'HEALTHY') {
    if (!last) return null;
    return {
      event: 'storage.healthy',
      title: 'Storage is healthy again',
      message: 'No pool, storage or container filesystem needs a look any more.',
      tags: ['white_check_mark', 'storage'],
      priority: 3,
      link: '/',
      data,
      subject,
      resolves: true,
    };
  }
  const event = storage.status === 'ATTENTION' ? 'storage.attention' : 'storage.watch';
  if (last === event) return null;
  return {
    event,
    title: storage.status === 'ATTENTION' ? 'Storage needs attention' : 'Storage to watch',
    message: findings.join('\n'),
    tags: [storage.status === 'ATTENTION' ? 'rotating_light' : 'warning', 'storage'],
    priority: storage.status === 'ATTENTION' ? 4 : 3,
    link: '/',
    data,
    subject,
  };
}

/** Reads the roll-up and raises what changed; the alert raised, or null. Nothing when Proxmox is not configured. */
export async function checkStorage(deps: JobDeps): Promise<RaisedAlert | null> {
  const resolved = await integrationSettings(deps, 'proxmox');
  if (!resolved) return null;
  const pve = pveClient({ ...resolved.settings, timeoutMs: deps.config.dashboard.upstreamTimeoutMs });
  let storage: Storage;
  try {
    const overrides = await readSetting(deps.sql, dashboardSetting);
    storage = await readStorage(pve, {
      watchPercent: overrides.storage_watch_percent ?? deps.config.dashboard.storageWatchPercent,
      attentionPercent: overrides.storage_attention_percent ?? deps.config.dashboard.storageAttentionPercent,
    });
  } finally {
    await pve.close();
  }
  return deps.sql.begin(async (tx) => {
    const open = await openProblems(tx, subject);
    const alert = storageAlert(storage, open.get(subject) ?? null);
    if (alert) {
      await raiseAlert(tx, deps, alert);
      // The roll-up changed: on the timeline too, under the same subject.
      await recordEvent(tx, {
        kind: alert.event,
        title: alert.title,
        severity:
          storage.status === 'ATTENTION' ? 'critical' : storage.status === 'WATCH' ? 'warning' : 'notice',
        subject: { type: 'storage', id: 'proxmox' },
        data: { ...alert.data, findings: alert.message },
      });
    }
    return alert;
  });
}

export const storageTasks: DomainTask[] = [
  runs(storageCheckTask, (deps) => async (_payload, helpers) => {
    try {
      await checkStorage(deps);
    } catch (error) {
      // Proxmox unreachable is the storage card's to show, not a failed job every five minutes.
      helpers.logger.warn(`storage.check: the storage roll-up cannot be read: ${(error as Error).message}`);
    }
  }),
];

export const storageCron: DomainCron = () => [
  cronItem({ id: 'storage.check', task: storageCheckTask, schedule: '*/5 * * * *', payload: {} }),
];
