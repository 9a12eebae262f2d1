// The `dashboard` setting: the owner's run-time overrides of the storage thresholds and the backup staleness rule
// (the environment's STORAGE_WATCH_PERCENT and STORAGE_ATTENTION_PERCENT are the defaults).
import { Type } from 'typebox';
import { defineSetting } from '../../lib/settings.ts';

const Percent = Type.Integer({ minimum: 1, maximum: 100 });

export const dashboardSetting = defineSetting({
  key: 'dashboard',
  schema: Type.Object(
    {
      storage_watch_percent: Type.Optional(Percent),
      storage_attention_percent: Type.Optional(Percent),
      backup_grace_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 14 })),
      backup_stale_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 * 60 })),
    },
    { additionalProperties: false },
  ),
  defaultValue: {},
  description:
    'Storage roll-up thresholds (storage_watch_percent, storage_attention_percent; default from the environment) and ' +
    'backup staleness (backup_grace_hours after a scheduled run, default 6; backup_stale_hours without a schedule, default 48)',
});
