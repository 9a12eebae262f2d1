import { Type } from 'typebox';
import { PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';

export const auditActions = [
  'approve',
  'reject',
  'apply_direct',
  'restore_version',
  'trash',
  'restore',
  'purge',
  'mcp_call',
] as const;
export const auditOutcomes = ['applied', 'failed', 'rejected'] as const;

export const AuditEntry = Type.Object(
  {
    id: Uuid,
    actor: Type.String({
      description: "'owner', 'owner:access:<email>' or the id of the agent that wrote directly",
    }),
    action: Type.Enum([...auditActions]),
    pending_change_id: Type.Union([Uuid, Type.Null()]),
    entity_type: Type.Union([Type.String(), Type.Null()]),
    entity_id: Type.Union([Uuid, Type.Null()]),
    outcome: Type.Enum([...auditOutcomes]),
    detail: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
  },
  { $id: 'AuditEntry' },
);

export const AuditList = Paginated(Type.Ref('AuditEntry'));

export const AuditQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
    action: Type.Optional(Type.Enum([...auditActions])),
    outcome: Type.Optional(Type.Enum([...auditOutcomes])),
    entity_type: Type.Optional(Type.String({ maxLength: 50 })),
    entity_id: Type.Optional(Uuid),
    pending_change_id: Type.Optional(Uuid),
  }),
]);
