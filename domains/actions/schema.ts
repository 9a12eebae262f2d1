import { type Static, Type } from 'typebox';
import { NullableTimestamp, Timestamp, Uuid } from '../../lib/schemas.ts';

export const RunAction = Type.Object(
  {
    action: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'An actionable task, e.g. health.check',
    }),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The task’s payload' })),
  },
  { additionalProperties: false },
);
export type RunAction = Static<typeof RunAction>;

export const PendingAction = Type.Object(
  {
    id: Uuid,
    action: Type.String(),
    params: Type.Record(Type.String(), Type.Unknown()),
    agent_id: Type.Union([Uuid, Type.Null()]),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('applying'),
      Type.Literal('approved'),
      Type.Literal('rejected'),
    ]),
    job_id: Type.Union([Type.String(), Type.Null()]),
    result: Type.Unknown({
      description: 'what an approved downstream MCP call (action mcp.call) answered; null for other actions',
    }),
    reason: Type.Union([Type.String(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()]),
    decided_by: Type.Union([Type.String(), Type.Null()]),
    decided_at: NullableTimestamp,
    created_at: Timestamp,
  },
  { $id: 'PendingAction' },
);
export type PendingAction = Static<typeof PendingAction>;

export const ActionStarted = Type.Object({
  job_id: Type.String(),
  task: Type.String(),
  status: Type.Literal('queued'),
});
export const ActionProposed = Type.Object({ action_id: Uuid, status: Type.Literal('pending') });

export const RejectBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
