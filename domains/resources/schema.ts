import { type Static, Type } from 'typebox';
import { CreateSpaceId, PageQuery, Paginated, Patch, Timestamp, Uuid } from '../../lib/schemas.ts';

const Blob = Type.Record(Type.String(), Type.Unknown());

export const Resource = Type.Object(
  {
    id: Uuid,
    space_id: Uuid,
    name: Type.String(),
    kind: Type.String(),
    host: Type.Union([Type.String(), Type.Null()]),
    notes: Type.String(),
    monitoring: Type.Optional(Type.Unsafe<Record<string, unknown>>({ ...Blob, description: 'owner only' })),
    metadata: Type.Optional(Type.Unsafe<Record<string, unknown>>({ ...Blob, description: 'owner only' })),
    depends_on: Type.Array(Uuid, { description: 'ids of the resources this one depends on' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Resource',
    description: 'Agents get the allow-listed columns only: never monitoring or metadata.',
  },
);

const name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const kind = Type.String({
  minLength: 1,
  maxLength: 50,
  pattern: '^[a-z0-9][a-z0-9_.-]*$',
  description: 'vm, container, service, disk, network...',
});
const host = Type.Union([Type.String({ maxLength: 253 }), Type.Null()]);
const notes = Type.String({ maxLength: 100_000 });
const blob = Type.Record(Type.String(), Type.Unknown(), { maxProperties: 500 });

export const CreateResource = Type.Object(
  {
    space_id: CreateSpaceId,
    name,
    kind: Type.Optional(kind),
    host: Type.Optional(host),
    notes: Type.Optional(notes),
    monitoring: Type.Optional(blob),
    metadata: Type.Optional(blob),
  },
  { additionalProperties: false },
);
export type CreateResource = Static<typeof CreateResource>;

export const UpdateResource = Patch({ name, kind, host, notes, monitoring: blob, metadata: blob });
export type UpdateResource = Static<typeof UpdateResource>;

export const ResourceList = Paginated(Type.Ref('Resource'));
export const ResourceListQuery = Type.Intersect([
  PageQuery,
  Type.Object({ space_id: Type.Optional(Uuid), kind: Type.Optional(Type.String({ maxLength: 50 })) }),
]);

export const AddDependency = Type.Object({ depends_on_id: Uuid }, { additionalProperties: false });
export const Dependency = Type.Object({ resource_id: Uuid, depends_on_id: Uuid, created_at: Timestamp });
export const DependencyParams = Type.Object({ id: Uuid, dependsOnId: Uuid });
