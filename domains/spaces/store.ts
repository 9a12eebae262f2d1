import type { Static } from 'typebox';
import { listPage } from '../../lib/list-page.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import type { CreateSpace, Space, UpdateSpace } from './schema.ts';

/** A row as the API shows it: the Space schema's type. */
export type SpaceRow = Static<typeof Space>;

const columns = ['id', 'name', 'description', 'created_at', 'updated_at'];

/** Lists spaces; `onlyId` narrows to the one space a scoped agent may see. */
export async function listSpaces(
  sql: Db,
  page: { limit: number; offset: number },
  onlyId: string | null = null,
) {
  const where = onlyId ? sql`where id = ${onlyId}` : sql``;
  return listPage<SpaceRow>(
    sql,
    { select: sql`${sql(columns)}`, from: sql`from spaces ${where}`, orderBy: sql`lower(name), id` },
    page,
  );
}

export async function findSpace(sql: Db, id: string): Promise<SpaceRow | undefined> {
  const [row] = await sql<SpaceRow[]>`select ${sql(columns)} from spaces where id = ${id}`;
  return row;
}

export async function spaceExists(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql`select 1 from spaces where id = ${id}`;
  return row !== undefined;
}

/** The id of the space with this name (any case), made with `description` when there is none. */
export async function ensureSpaceNamed(sql: Db, name: string, description: string): Promise<string> {
  await sql`
    insert into spaces (name, description) values (${name}, ${description})
    on conflict ((lower(name))) do nothing`;
  const [row] = await sql<{ id: string }[]>`select id from spaces where lower(name) = lower(${name})`;
  return row.id;
}

export async function insertSpace(sql: Db, input: CreateSpace): Promise<SpaceRow> {
  const [row] = await sql<SpaceRow[]>`
    insert into spaces (name, description) values (${input.name.trim()}, ${input.description ?? ''})
    returning ${sql(columns)}`;
  return row;
}

export async function updateSpace(sql: Db, id: string, patch: UpdateSpace): Promise<SpaceRow | undefined> {
  const fields = { ...patch, ...(patch.name ? { name: patch.name.trim() } : {}) };
  const [row] = await sql<SpaceRow[]>`
    update spaces set ${sql(fields)}, updated_at = now() where id = ${id} returning ${sql(columns)}`;
  return row;
}

/** Whether anything lives in the space: pages, projects, tasks, refs, source documents, resources, conversations. */
export async function spaceHasContent(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    select exists (select 1 from pages where space_id = ${id})
        or exists (select 1 from projects where space_id = ${id})
        or exists (select 1 from tasks where space_id = ${id})
        or exists (select 1 from refs where space_id = ${id})
        or exists (select 1 from source_docs where space_id = ${id})
        or exists (select 1 from resources where space_id = ${id})
        or exists (select 1 from conversations where space_id = ${id}) as found`;
  return row.found;
}

/**
 * Deletes a space. Without `cascade` a space with content is kept (`has-content`); with it, the content goes too.
 * The space row is locked first, so content added concurrently waits and then finds the space gone.
 */
export async function deleteSpace(
  sql: Sql,
  id: string,
  cascade = false,
  /** Runs in the delete's transaction just before it (the trash keeps what it takes along). */
  beforeDelete: (tx: Db) => Promise<unknown> = async () => undefined,
): Promise<'deleted' | 'missing' | 'has-content'> {
  return sql.begin(async (tx) => {
    const [space] = await tx`select id from spaces where id = ${id} for update`;
    if (!space) return 'missing' as const;
    if (!cascade && (await spaceHasContent(tx, id))) return 'has-content' as const;
    await beforeDelete(tx);
    await tx`delete from spaces where id = ${id}`;
    return 'deleted' as const;
  });
}
