import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

const Ids = Type.Array(Uuid, { maxItems: 1000, uniqueItems: true });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

const windowFields = {
  title: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  starts_at: Type.String({
    format: 'date-time',
    description: 'the start of the window, or of the first occurrence of a recurring one (its DTSTART)',
  }),
  ends_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'the end of a one-off window; null for a recurring one',
  }),
  rrule: Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()], {
    description:
      'an RFC 5545 recurrence rule (FREQ=WEEKLY;BYDAY=SU, with or without the RRULE: prefix) counted from ' +
      'starts_at in UTC; HOURLY or slower. Null for a one-off window',
  }),
  duration_minutes: Type.Union([Type.Integer({ minimum: 1, maximum: 10_080 }), Type.Null()], {
    description: 'how long each occurrence of a recurring window lasts',
  }),
  service_ids: Type.Array(Uuid, { maxItems: 1000, uniqueItems: true, description: 'services covered' }),
  resource_ids: Type.Array(Uuid, {
    maxItems: 1000,
    uniqueItems: true,
    description: 'resources covered: every service running on one (its resource_id) is covered too',
  }),
  notify_start_end: Type.Boolean({ description: 'raise maintenance.started and maintenance.ended alerts' }),
};

export const MaintenanceWindow = Type.Object(
  {
    id: Uuid,
    title: Type.String(),
    starts_at: Timestamp,
    ends_at: NullableTimestamp,
    rrule: Type.Union([Type.String(), Type.Null()]),
    duration_minutes: Type.Union([Type.Integer(), Type.Null()]),
    service_ids: Ids,
    resource_ids: Ids,
    notify_start_end: Type.Boolean(),
    active: Type.Boolean({ description: 'whether the window (one of its occurrences) is on now' }),
    current: Type.Union([Type.Object({ starts_at: Timestamp, ends_at: Timestamp }), Type.Null()], {
      description: 'the occurrence on now',
    }),
    next: Type.Union([Type.Object({ starts_at: Timestamp, ends_at: Timestamp }), Type.Null()], {
      description: 'the next occurrence to start, null when none is left',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'MaintenanceWindow' },
);
export type MaintenanceWindow = Static<typeof MaintenanceWindow>;

export const CreateMaintenance = Type.Object(
  {
    title: windowFields.title,
    starts_at: windowFields.starts_at,
    ends_at: Type.Optional(windowFields.ends_at),
    rrule: Type.Optional(windowFields.rrule),
    duration_minutes: Type.Optional(windowFields.duration_minutes),
    service_ids: Type.Optional(windowFields.service_ids),
    resource_ids: Type.Optional(windowFields.resource_ids),
    notify_start_end: Type.Optional(windowFields.notify_start_end),
  },
  { additionalProperties: false },
);
export type CreateMaintenance = Static<typeof CreateMaintenance>;

export const UpdateMaintenance = Type.Partial(Type.Object(windowFields), {
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateMaintenance = Static<typeof UpdateMaintenance>;

export const MaintenanceList = Type.Object({
  items: Type.Array(Type.Ref('MaintenanceWindow')),
  total: Type.Integer({ minimum: 0 }),
});

export const announceMaintenanceTask = defineTask({
  name: 'maintenance.announce',
  payload: Type.Object({}, { additionalProperties: false }),
  description: 'Raises maintenance.started and maintenance.ended for the windows that ask for it',
  maxAttempts: 1,
});
