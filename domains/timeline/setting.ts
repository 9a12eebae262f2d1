// How long the timeline keeps its events (the daily timeline.purge deletes older ones).
import { Type } from 'typebox';
import { defineSetting } from '../../lib/settings.ts';

export const timelineRetentionSetting = defineSetting({
  key: 'timeline.retention_days',
  schema: Type.Integer({ minimum: 1, maximum: 3650 }),
  defaultValue: 365,
  description: 'Days the timeline keeps an event; older events are deleted once a day',
});
