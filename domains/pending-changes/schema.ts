import { type Static, Type } from 'typebox';
import { NullableTimestamp, PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { changeTypes, writeActions } from '../entities/registry.ts';

export const pendingStatuses = ['pending', 'applying', 'applied', 'rejected'] as const;

const EntityTypeSchema = Type.Enum([...changeTypes]);
const ActionSchema = Type.Enum([...writeActions]);
const StatusSchema = Type.Enum([...pendingStatuses]);

export const PendingChange = Type.Object(
  {
    id: Uuid,
    agent_id: Type.Union([Uuid, Type.Null()], { description: 'the proposing agent (null once deleted)' }),
    entity_type: EntityTypeSchema,
    action: ActionSchema,
    entity_id: Type.Union([Uuid, Type.Null()], { description: 'the target of an update or delete' }),
    space_id: Type.Union([Uuid, Type.Null()], { description: 'the space the change lands in' }),
    payload: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'the create, update or upsert body, as the REST route takes it',
    }),
    status: StatusSchema,
    error: Type.Union([Type.String(), Type.Null()], { description: 'why the last approval failed' }),
    result_entity_id: Type.Union([Uuid, Type.Null()]),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'the rejection reason' }),
    decided_by: Type.Union([Type.String(), Type.Null()]),
    decided_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'PendingChange' },
);

/** The answer to a diverted write: 202 from REST, the result of a write tool. */
export const PendingReceipt = Type.Object(
  { pending_change_id: Uuid, status: Type.Literal('pending') },
  { description: "a suggest-tier agent's write, waiting for the owner's approval" },
);
export type PendingReceipt = Static<typeof PendingReceipt>;

export const PendingChangeList = Paginated(Type.Ref('PendingChange'));

export const PendingChangeQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    status: Type.Optional(StatusSchema),
    agent_id: Type.Optional(Uuid),
    entity_type: Type.Optional(EntityTypeSchema),
    action: Type.Optional(ActionSchema),
  }),
]);

/** An agent's own changes (the tool protocol's list_my_pending_changes). */
export const MyPendingChangeQuery = Type.Intersect([
  PageQuery,
  Type.Object({ status: Type.Optional(StatusSchema) }),
]);

export const RejectChange = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

/**
 * A failed approval: the error and, when the change exists, the change as it now is (reopened with the error, or
 * as another approval left it).
 */
export const ApprovalFailure = Type.Object(
  {
    statusCode: Type.Integer(),
    code: Type.String(),
    error: Type.String(),
    message: Type.String(),
    pending_change: Type.Optional(Type.Ref('PendingChange')),
  },
  { additionalProperties: true },
);
