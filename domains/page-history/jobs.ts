// page_history.purge: once a day, page versions past the retention go (each page's newest ones stay).
import { cronItem, type DomainCron, type DomainTask, runs } from '../../worker/contract.ts';
import { readSetting } from '../settings/registry.ts';
import { pageHistoryPurgeTask } from './schema.ts';
import { pageHistorySetting } from './setting.ts';
import { purgeVersions } from './store.ts';

export const pageHistoryTasks: DomainTask[] = [
  runs(pageHistoryPurgeTask, (deps) => async (_payload, helpers) => {
    const { retention_days, keep_last } = await readSetting(deps.sql, pageHistorySetting);
    const removed = await purgeVersions(deps.sql, retention_days, keep_last);
    if (removed > 0)
      helpers.logger.info(`deleted ${removed} page versions older than ${retention_days} days`);
  }),
];

export const pageHistoryCron: DomainCron = () => [
  cronItem({ id: 'page_history.purge', task: pageHistoryPurgeTask, schedule: '41 3 * * *', payload: {} }),
];
