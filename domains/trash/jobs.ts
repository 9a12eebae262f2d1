// trash.purge: once a day, items deleted longer ago than the `trash` retention go for good, each audited.
import { cronItem, type DomainCron, type DomainTask, runs } from '../../worker/contract.ts';
import { readSetting } from '../settings/registry.ts';
import { auditPurge } from './move.ts';
import { trashPurgeTask } from './schema.ts';
import { trashSetting } from './setting.ts';
import { purgeTrash } from './store.ts';

export const trashTasks: DomainTask[] = [
  runs(trashPurgeTask, (deps) => async (_payload, helpers) => {
    const { retention_days } = await readSetting(deps.sql, trashSetting);
    const purged = await deps.sql.begin(async (tx) => {
      const items = await purgeTrash(tx, retention_days);
      for (const item of items) await auditPurge(tx, 'system', item);
      return items.length;
    });
    if (purged > 0) helpers.logger.info(`purged ${purged} trash items older than ${retention_days} days`);
  }),
];

export const trashCron: DomainCron = () => [
  cronItem({ id: 'trash.purge', task: trashPurgeTask, schedule: '53 3 * * *', payload: {} }),
];
