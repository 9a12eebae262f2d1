// How long check results are kept (history and uptime read them): days, 90 by default.
import { Type } from 'typebox';
import { defineSetting } from '../../lib/settings.ts';

export const healthRetentionSetting = defineSetting({
  key: 'health.retention_days',
  schema: Type.Integer({ minimum: 1, maximum: 3650 }),
  defaultValue: 90,
  description:
    'Days health-check results are kept (history, uptime); older ones are removed once a day (health.purge)',
});
