// Tool schemas. Inputs and outputs are the REST routes' own schemas wherever one exists; what is here is only what
// the tool protocol adds: an id next to a patch, the project with its links, the context and audit results.
import { type TSchema, Type } from 'typebox';
import { Timestamp, Uuid } from '../../lib/schemas.ts';
import { NetworkHost } from '../network-hosts/schema.ts';
import { Page, UpdatePage } from '../pages/schema.ts';
import { PendingChange, PendingReceipt } from '../pending-changes/schema.ts';
import { Project } from '../projects/schema.ts';
import { Ref } from '../refs/schema.ts';
import { Resource, UpdateResource } from '../resources/schema.ts';
import { SourceDoc } from '../source-docs/schema.ts';
import { Task, UpdateTask } from '../tasks/schema.ts';
import { findingKinds } from './network-audit.ts';

/** The schemas Type.Ref points at, by $id. */
export const named: Record<string, TSchema> = {
  Page,
  Project,
  Task,
  Ref,
  SourceDoc,
  Resource,
  NetworkHost,
  PendingChange,
};

export const IdArgs = Type.Object({ id: Uuid }, { additionalProperties: false });

/** An update tool's arguments: the entity's id and the route's patch fields, at least one of them. */
function withId<P extends TSchema>(patch: { properties: Record<string, P> }) {
  return Type.Object({ id: Uuid, ...patch.properties }, { additionalProperties: false, minProperties: 2 });
}

export const UpdatePageArgs = withId(UpdatePage);
export const UpdateTaskArgs = withId(UpdateTask);
export const UpdateResourceArgs = withId(UpdateResource);
export const MovePageArgs = Type.Object(
  {
    id: Uuid,
    parent_id: UpdatePage.properties.parent_id,
    position: UpdatePage.properties.position,
  },
  {
    additionalProperties: false,
    minProperties: 2,
    description: 'parent_id null moves the page to the top level; position places it among its new siblings',
  },
);

/** A write's result: the entity written, or the receipt of a pending change (suggest tier). */
export function Written(entity: string) {
  return Type.Union([Type.Ref(entity), PendingReceipt]);
}

export const ProjectWithLinks = Type.Object({
  project: Type.Ref('Project'),
  tasks: Type.Array(Type.Ref('Task')),
  refs: Type.Array(Type.Ref('Ref')),
});

export const ContextArgs = Type.Object({ space_id: Type.Optional(Uuid) }, { additionalProperties: false });

/** A resource as agents see it: the allow-listed columns and its dependencies, never monitoring or metadata. */
export const ContextResource = Type.Omit(Resource, ['monitoring', 'metadata']);

export const Context = Type.Object({
  space_id: Type.Union([Uuid, Type.Null()], { description: 'null: every space in reach' }),
  resources: Type.Array(ContextResource),
});

export const NetworkAuditArgs = Type.Object(
  {
    stale_after_days: Type.Integer({
      minimum: 1,
      maximum: 3650,
      default: 7,
      description: 'a host not seen for this many days is reported',
    }),
  },
  { additionalProperties: false },
);

export const Finding = Type.Object({
  kind: Type.Enum([...findingKinds]),
  severity: Type.Enum(['warning', 'info']),
  host_ids: Type.Array(Uuid),
  message: Type.String(),
});

export const NetworkAudit = Type.Object({
  checked_at: Timestamp,
  stale_after_days: Type.Integer(),
  hosts: Type.Array(Type.Ref('NetworkHost')),
  findings: Type.Array(Finding),
});
