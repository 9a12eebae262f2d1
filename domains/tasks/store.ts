import type { Static } from 'typebox';
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';
import type { Task } from './schema.ts';

/** A row as the API shows it: the Task schema's type. */
export type TaskRow = Static<typeof Task>;

const columns = [
  'id',
  'project_id',
  'space_id',
  'title',
  'status',
  'due_at',
  'notes',
  'created_at',
  'updated_at',
];

export async function findTask(sql: Db, id: string): Promise<TaskRow | undefined> {
  const [row] = await sql<TaskRow[]>`select ${sql(columns)} from tasks where id = ${id}`;
  return row;
}

export async function lockTask(sql: Db, id: string): Promise<TaskRow | undefined> {
  const [row] = await sql<TaskRow[]>`select ${sql(columns)} from tasks where id = ${id} for update`;
  return row;
}

/** The space of a project, locked against deletion until the transaction ends. */
export async function projectSpace(sql: Db, projectId: string): Promise<string | undefined> {
  const [row] = await sql<{ space_id: string }[]>`
    select space_id from projects where id = ${projectId} for key share`;
  return row?.space_id;
}

export async function listTasks(
  sql: Db,
  filter: { spaceId?: string; projectId?: string; status?: string; limit: number; offset: number },
) {
  const where = sql`where true
    ${filter.spaceId ? sql`and space_id = ${filter.spaceId}` : sql``}
    ${filter.projectId ? sql`and project_id = ${filter.projectId}` : sql``}
    ${filter.status ? sql`and status = ${filter.status}` : sql``}`;
  return listPage<TaskRow>(
    sql,
    {
      select: sql`${sql(columns)}`,
      from: sql`from tasks ${where}`,
      orderBy: sql`due_at nulls last, created_at, id`,
    },
    filter,
  );
}

export async function insertTask(
  sql: Db,
  task: {
    project_id: string;
    space_id: string;
    title: string;
    status: string;
    due_at: string | Date | null;
    notes: string;
  },
): Promise<TaskRow> {
  const [row] = await sql<TaskRow[]>`
    insert into tasks (project_id, space_id, title, status, due_at, notes)
    values (${task.project_id}, ${task.space_id}, ${task.title}, ${task.status}, ${task.due_at}, ${task.notes})
    returning ${sql(columns)}`;
  return row;
}

export async function updateTask(
  sql: Db,
  id: string,
  fields: {
    project_id?: string;
    title?: string;
    status?: string;
    due_at?: string | Date | null;
    notes?: string;
  },
): Promise<TaskRow | undefined> {
  if (Object.keys(fields).length === 0) return findTask(sql, id);
  const [row] = await sql<TaskRow[]>`
    update tasks set ${sql(fields)}, updated_at = now() where id = ${id} returning ${sql(columns)}`;
  return row;
}

export async function deleteTask(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from tasks where id = ${id}`;
  return result.count > 0;
}
