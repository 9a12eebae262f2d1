// page_history.purge: once a day, page versions past the retention go (each page's newest ones stay).
import type { DomainCron } from '../../worker/cron.ts';
import type { DomainTasks } from '../../worker/tasks.ts';
import { readSetting } from '../settings/registry.ts';
import { pageHistorySetting } from './setting.ts';
import { purgeVersions } from './store.ts';

export const pageHistoryTasks: DomainTasks = (deps) => ({
  'page_history.purge': async (_payload, helpers) => {
    const { retention_days, keep_last } = await readSetting(deps.sql, pageHistorySetting);
    const removed = await purgeVersions(deps.sql, retention_days, keep_last);
    if (removed > 0)
      helpers.logger.info(`deleted ${removed} page versions older than ${retention_days} days`);
  },
});

export const pageHistoryCron: DomainCron = () => [
  { id: 'page_history.purge', task: 'page_history.purge', schedule: '41 3 * * *', payload: {} },
];
