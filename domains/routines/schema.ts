import { type Static, Type } from 'typebox';
import { NullableTimestamp, PageQuery, Paginated, Patch, Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

export const Routine = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    agent_id: Uuid,
    schedule: Type.String({ description: 'A 5-field cron expression, in the hub’s time zone' }),
    prompt: Type.String(),
    space_id: Type.Union([Uuid, Type.Null()]),
    enabled: Type.Boolean(),
    last_run_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Routine' },
);
export type Routine = Static<typeof Routine>;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  agent_id: Uuid,
  schedule: Type.String({ minLength: 1, maxLength: 200, description: 'A 5-field cron expression' }),
  prompt: Type.String({ minLength: 1, maxLength: 20_000, pattern: '\\S' }),
  space_id: Type.Union([Uuid, Type.Null()]),
  enabled: Type.Boolean(),
};

export const CreateRoutine = Type.Object(
  {
    name: fields.name,
    agent_id: fields.agent_id,
    schedule: fields.schedule,
    prompt: fields.prompt,
    space_id: Type.Optional(fields.space_id),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false },
);
export type CreateRoutine = Static<typeof CreateRoutine>;

export const UpdateRoutine = Patch(fields);
export type UpdateRoutine = Static<typeof UpdateRoutine>;

export const RoutineRun = Type.Object(
  {
    id: Uuid,
    routine_id: Uuid,
    trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual')]),
    state: Type.Union([Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
    period_since: Timestamp,
    period_until: Timestamp,
    output: Type.String(),
    tools: Type.Array(Type.Unknown()),
    drafts: Type.Array(Type.String(), { description: 'The pending changes and actions its writes became' }),
    usage: Type.Union([
      Type.Object({
        model: Type.String(),
        input_tokens: Type.Integer(),
        output_tokens: Type.Integer(),
        latency_ms: Type.Integer(),
      }),
      Type.Null(),
    ]),
    error: Type.Union([Type.String(), Type.Null()]),
    started_at: Timestamp,
    finished_at: NullableTimestamp,
  },
  { $id: 'RoutineRun' },
);
export type RoutineRun = Static<typeof RoutineRun>;

export const RoutineList = Paginated(Routine);
export const RoutineRunList = Paginated(RoutineRun);
export { PageQuery };

export const RunQueued = Type.Object({ job_id: Type.String(), status: Type.Literal('queued') });

export const routinesDueTask = defineTask({
  name: 'routines.due',
  description: 'Each minute: one run of every enabled routine whose schedule is due',
  payload: Type.Object({}, { additionalProperties: false }),
});

export const routineRunTask = defineTask({
  name: 'routines.run',
  description: 'One run of a routine: a headless turn of its agent over the timeline since its last run',
  payload: Type.Object(
    { routine_id: Uuid, trigger: Type.Union([Type.Literal('schedule'), Type.Literal('manual')]) },
    { additionalProperties: false },
  ),
  maxAttempts: 1,
});
