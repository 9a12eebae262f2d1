import { type Static, Type } from 'typebox';
import {
  NullableDateInput,
  NullableTimestamp,
  PageQuery,
  Paginated,
  Patch,
  Timestamp,
  Uuid,
} from '../../lib/schemas.ts';

export const TaskStatus = Type.Enum(['todo', 'doing', 'done', 'cancelled']);

export const Task = Type.Object(
  {
    id: Uuid,
    project_id: Uuid,
    space_id: Uuid,
    title: Type.String(),
    status: TaskStatus,
    due_at: NullableTimestamp,
    notes: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Task' },
);

const title = Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' });
const notes = Type.String({ maxLength: 200_000 });

export const CreateTask = Type.Object(
  {
    project_id: Uuid,
    space_id: Type.Optional(Uuid),
    title,
    status: Type.Optional(TaskStatus),
    due_at: Type.Optional(NullableDateInput),
    notes: Type.Optional(notes),
  },
  { additionalProperties: false },
);
export type CreateTask = Static<typeof CreateTask>;

export const UpdateTask = Patch({
  project_id: Uuid,
  title,
  status: TaskStatus,
  due_at: NullableDateInput,
  notes,
});
export type UpdateTask = Static<typeof UpdateTask>;

export const TaskList = Paginated(Type.Ref('Task'));
export const TaskListQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    space_id: Type.Optional(Uuid),
    project_id: Type.Optional(Uuid),
    status: Type.Optional(TaskStatus),
  }),
]);
