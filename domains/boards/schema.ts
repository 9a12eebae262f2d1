// Boards: named dashboards shown as tabs, in order. One is the default: its layout is the dashboard layout.
import { type Static, Type } from 'typebox';
import { Patch, Timestamp, Uuid } from '../../lib/schemas.ts';

export const Board = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    position: Type.Integer({ minimum: 0, description: 'tab order, 0..n-1' }),
    is_default: Type.Boolean({ description: 'its layout is /api/dashboard/layout; it cannot be deleted' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Board' },
);
export type Board = Static<typeof Board>;

const name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });
const position = Type.Integer({ minimum: 0, maximum: 1000, description: 'tab order (clamped to the end)' });

export const CreateBoard = Type.Object(
  { name, position: Type.Optional(position) },
  { additionalProperties: false },
);
export type CreateBoard = Static<typeof CreateBoard>;

export const UpdateBoard = Patch({ name, position });
export type UpdateBoard = Static<typeof UpdateBoard>;

export const BoardList = Type.Object({ items: Type.Array(Type.Ref('Board')), total: Type.Integer() });
