// The `trash` setting: how long deleted items wait in the trash.
import { defineSetting } from '../../lib/settings.ts';
import { TrashSettings } from './schema.ts';

export const trashSetting = defineSetting({
  key: 'trash',
  schema: TrashSettings,
  defaultValue: { retention_days: 30 },
  description: 'Trash: items deleted longer ago than retention_days are purged for good',
});
