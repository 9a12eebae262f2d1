import { Type } from 'typebox';
import { NullableTimestamp, PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { changeTypes, writeActions } from '../entities/registry.ts';

export const pendingStatuses = ['pending', 'applying', 'applied', 'rejected'] as const;

const EntityTypeSchema = Type.Enum([...changeTypes]);
const ActionSchema = Type.Enum([...writeActions]);
const StatusSchema = Type.Enum([...pendingStatuses]);

export const PendingFile = Type.Object(
  {
    name: Type.String({ description: 'the file name the agent gave' }),
    type: Type.String({
      description: 'the media type the agent declared (checked against the bytes on approval)',
    }),
    size: Type.Integer({ minimum: 0, description: 'bytes' }),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'hex SHA-256 of the bytes' }),
  },
  {
    description:
      'the file the change carries; its bytes are at GET /api/pending-changes/:id/file (owner only)',
  },
);

export const PendingChange = Type.Object(
  {
    id: Uuid,
    agent_id: Type.Union([Uuid, Type.Null()], { description: 'the proposing agent (null once deleted)' }),
    entity_type: EntityTypeSchema,
    action: ActionSchema,
    entity_id: Type.Union([Uuid, Type.Null()], { description: 'the target of an update or delete' }),
    space_id: Type.Union([Uuid, Type.Null()], { description: 'the space the change lands in' }),
    payload: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description:
        'the create, update or upsert body, as the REST route takes it (an upload: space_id, title)',
    }),
    payload_truncated: Type.Boolean({
      description:
        'true in a list when the payload is over 4 KiB: long strings are cut to 500 characters and large objects ' +
        'replaced by a note of their size. GET /api/pending-changes/:id has it whole.',
    }),
    file: Type.Union([PendingFile, Type.Null()]),
    target_version: Type.Union([Type.Integer(), Type.Null()], {
      description: "an update's or delete's target version when proposed (its ETag then)",
    }),
    target_before: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'the fields the change sets, as the target had them when proposed',
    }),
    diff: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), diff: Type.String() }), {
        description:
          'an update read on its own: for each text field it sets, the unified diff from the current text to the ' +
          'proposed one',
      }),
    ),
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

export { PendingReceipt } from '../../lib/schemas.ts';

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

export const ApproveChange = Type.Object(
  {
    force: Type.Optional(
      Type.Boolean({
        description: 'apply even when the target changed since the proposal (else 409 PENDING_CHANGE_STALE)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RejectChange = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

/** A field of a stale change's target that changed since the proposal (PENDING_CHANGE_STALE). */
const StaleField = Type.Object({
  field: Type.String(),
  proposed_against: Type.Unknown({ description: 'the value when the change was proposed' }),
  current: Type.Unknown({ description: 'the value now' }),
  proposed: Type.Unknown({ description: 'what the change would set' }),
  diff: Type.Optional(
    Type.String({
      description: 'text: the unified diff from the proposal’s starting point to the current text',
    }),
  ),
});

/**
 * A failed approval: the error and, when the change exists, the change as it now is (reopened with the error, or
 * as another approval left it). A stale change (409 PENDING_CHANGE_STALE) also says what changed since.
 */
export const ApprovalFailure = Type.Object(
  {
    statusCode: Type.Integer(),
    code: Type.String(),
    error: Type.String(),
    message: Type.String(),
    pending_change: Type.Optional(Type.Ref('PendingChange')),
    proposed_against_version: Type.Optional(Type.Integer()),
    current_version: Type.Optional(Type.Integer()),
    changes: Type.Optional(Type.Array(StaleField)),
  },
  { additionalProperties: true },
);
