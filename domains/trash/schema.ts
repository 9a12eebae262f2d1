import { type Static, Type } from 'typebox';
import { PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

export const trashKinds = ['page', 'space', 'project', 'ref'] as const;
export type TrashKind = (typeof trashKinds)[number];

export const TrashItem = Type.Object(
  {
    id: Uuid,
    kind: Type.Enum([...trashKinds]),
    entity_id: Uuid,
    title: Type.String(),
    space_id: Type.Union([Uuid, Type.Null()], { description: 'the space it was in (a space: itself)' }),
    row_count: Type.Integer({
      minimum: 1,
      description: 'rows kept: the item and everything its delete took along (subpages, tasks, history ...)',
    }),
    contents: Type.Record(Type.String(), Type.Integer({ minimum: 1 }), {
      description:
        'what its delete took along besides the item itself, as rows per table: { "pages": 2, "page_versions": 5 }',
    }),
    deleted_by: Type.Object({
      kind: Type.Enum(['owner', 'agent', 'approval']),
      agent_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
      pending_change_id: Type.Optional(Uuid),
    }),
    deleted_at: Timestamp,
  },
  { $id: 'TrashItem' },
);
export type TrashItem = Static<typeof TrashItem>;

export const TrashList = Paginated(Type.Ref('TrashItem'));
export const TrashQuery = Type.Intersect([
  PageQuery,
  Type.Object({ kind: Type.Optional(Type.Enum([...trashKinds])) }),
]);

export const TrashSettings = Type.Object(
  { retention_days: Type.Integer({ minimum: 1, maximum: 36_500, description: 'older items are purged' }) },
  { additionalProperties: false },
);

export const TrashPurgePayload = Type.Object({}, { additionalProperties: false });

export const trashPurgeTask = defineTask({
  name: 'trash.purge',
  payload: TrashPurgePayload,
  description: 'Deletes for good the trash items deleted longer ago than the trash retention',
});
