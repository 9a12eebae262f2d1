import { type Static, Type } from 'typebox';
import { NullableTimestamp, PageQuery, Paginated, Timestamp } from '../../lib/schemas.ts';

export const JobState = Type.Union(
  [Type.Literal('queued'), Type.Literal('running'), Type.Literal('failed'), Type.Literal('completed')],
  {
    description:
      'queued: waiting to run (again, when last_error is set); running; failed: no attempt follows; completed',
  },
);

export const Job = Type.Object(
  {
    id: Type.String({ pattern: '^[0-9]+$', description: "graphile-worker's job id" }),
    task: Type.String({ examples: ['ingest.url'] }),
    state: JobState,
    payload: Type.Unknown(),
    job_key: Type.Union([Type.String(), Type.Null()]),
    attempts: Type.Integer({ minimum: 0 }),
    max_attempts: Type.Integer({ minimum: 1 }),
    last_error: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
    started_at: NullableTimestamp,
    finished_at: NullableTimestamp,
  },
  { $id: 'Job' },
);

export const JobParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,18}$' }) });
export type JobParams = Static<typeof JobParams>;

export const JobListQuery = Type.Object({
  ...PageQuery.properties,
  task: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  state: Type.Optional(JobState),
});
export type JobListQuery = Static<typeof JobListQuery>;

export const JobList = Paginated(Type.Ref('Job'));
