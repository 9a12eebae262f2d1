import type { Static } from 'typebox';
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';
import type { Ref } from '../refs/schema.ts';
import type { Task } from '../tasks/schema.ts';
import type { Project } from './schema.ts';

/** A row as the API shows it: the Project schema's type. */
export type ProjectRow = Static<typeof Project>;
type RefRow = Static<typeof Ref>;
type TaskRow = Static<typeof Task>;

const columns = [
  'id',
  'space_id',
  'name',
  'status',
  'research_status',
  'research_notes',
  'research_started_at',
  'research_finished_at',
  'created_at',
  'updated_at',
];

// Qualified, because the link queries join refs and tasks with project_refs.
const refColumns = (sql: Db) =>
  sql`r.id, r.space_id, r.source, r.external_id, r.url, r.title, r.notes, r.tags, r.created_at, r.updated_at`;

export async function findProject(sql: Db, id: string): Promise<ProjectRow | undefined> {
  const [row] = await sql<ProjectRow[]>`select ${sql(columns)} from projects where id = ${id}`;
  return row;
}

export async function lockProject(sql: Db, id: string): Promise<ProjectRow | undefined> {
  const [row] = await sql<ProjectRow[]>`select ${sql(columns)} from projects where id = ${id} for update`;
  return row;
}

export async function listProjects(
  sql: Db,
  filter: { spaceId?: string; status?: string; limit: number; offset: number },
) {
  const where = sql`where true
    ${filter.spaceId ? sql`and space_id = ${filter.spaceId}` : sql``}
    ${filter.status ? sql`and status = ${filter.status}` : sql``}`;
  return listPage<ProjectRow>(
    sql,
    { select: sql`${sql(columns)}`, from: sql`from projects ${where}`, orderBy: sql`lower(name), id` },
    filter,
  );
}

export async function insertProject(
  sql: Db,
  project: {
    space_id: string;
    name: string;
    status: string;
    research_status: string;
    research_notes: string;
  },
): Promise<ProjectRow> {
  const [row] = await sql<ProjectRow[]>`
    insert into projects (space_id, name, status, research_status, research_notes)
    values (${project.space_id}, ${project.name}, ${project.status}, ${project.research_status},
            ${project.research_notes})
    returning ${sql(columns)}`;
  return row;
}

export async function updateProject(
  sql: Db,
  id: string,
  fields: Partial<Omit<ProjectRow, 'id' | 'space_id' | 'created_at' | 'updated_at'>>,
): Promise<ProjectRow | undefined> {
  if (Object.keys(fields).length === 0) return findProject(sql, id);
  const [row] = await sql<ProjectRow[]>`
    update projects set ${sql(fields)}, updated_at = now() where id = ${id} returning ${sql(columns)}`;
  return row;
}

export async function deleteProject(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from projects where id = ${id}`;
  return result.count > 0;
}

/** The project's tasks (due first, undated last) and its linked refs (most recently linked first). */
export async function projectLinks(sql: Db, id: string): Promise<{ tasks: TaskRow[]; refs: RefRow[] }> {
  const tasks = await sql<TaskRow[]>`
    select id, project_id, space_id, title, status, due_at, notes, created_at, updated_at
    from tasks where project_id = ${id} order by due_at nulls last, created_at, id`;
  const refs = await sql<RefRow[]>`
    select ${refColumns(sql)} from project_refs l join refs r on r.id = l.ref_id
    where l.project_id = ${id} order by l.created_at desc, r.id`;
  return { tasks, refs };
}

export async function listProjectRefs(sql: Db, id: string, page: { limit: number; offset: number }) {
  return listPage<RefRow>(
    sql,
    {
      select: sql`${refColumns(sql)}`,
      from: sql`from project_refs l join refs r on r.id = l.ref_id where l.project_id = ${id}`,
      orderBy: sql`l.created_at desc, r.id`,
    },
    page,
  );
}

export interface ProjectRefLinkRow {
  project_id: string;
  ref_id: string;
  created_at: Date;
}

/**
 * Links a ref to a project. Null when the ref is missing; `other-space` when it lives in another space; a second
 * link of the same pair is a unique violation.
 */
export async function linkRef(
  sql: Db,
  projectId: string,
  refId: string,
): Promise<ProjectRefLinkRow | 'missing' | 'other-space'> {
  const [ref] = await sql<
    { space_id: string }[]
  >`select space_id from refs where id = ${refId} for key share`;
  if (!ref) return 'missing';
  const [row] = await sql<ProjectRefLinkRow[]>`
    insert into project_refs (project_id, ref_id)
    select ${projectId}, ${refId} from projects where id = ${projectId} and space_id = ${ref.space_id}
    returning project_id, ref_id, created_at`;
  return row ?? 'other-space';
}

export async function unlinkRef(sql: Db, projectId: string, refId: string): Promise<boolean> {
  const result = await sql`delete from project_refs where project_id = ${projectId} and ref_id = ${refId}`;
  return result.count > 0;
}
