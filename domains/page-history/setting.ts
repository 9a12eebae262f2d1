// The `page_history` setting: how long a page's earlier versions are kept.
import { defineSetting } from '../../lib/settings.ts';
import { PageHistorySettings } from './schema.ts';

export const pageHistorySetting = defineSetting({
  key: 'page_history',
  schema: PageHistorySettings,
  defaultValue: { retention_days: 180, keep_last: 50 },
  description: "Page history: versions older than retention_days go, except each page's keep_last newest",
});
