import type { Static } from 'typebox';
import { listPage } from '../../lib/list-page.ts';
import { hasTag } from '../../lib/tags.ts';
import type { Db } from '../../plugins/db.ts';
import type { Ref } from './schema.ts';

/** A row as the API shows it: the Ref schema's type. */
export type RefRow = Static<typeof Ref>;

const columns = [
  'id',
  'space_id',
  'source',
  'external_id',
  'url',
  'title',
  'notes',
  'tags',
  'created_at',
  'updated_at',
];

export interface NewRef {
  space_id: string;
  source: string;
  external_id: string;
  url?: string | null;
  title?: string;
  notes?: string;
  tags?: string[];
}

export async function findRef(sql: Db, id: string): Promise<RefRow | undefined> {
  const [row] = await sql<RefRow[]>`select ${sql(columns)} from refs where id = ${id}`;
  return row;
}

export async function lockRef(sql: Db, id: string): Promise<RefRow | undefined> {
  const [row] = await sql<RefRow[]>`select ${sql(columns)} from refs where id = ${id} for update`;
  return row;
}

export async function listRefs(
  sql: Db,
  filter: { spaceId?: string; source?: string; tag?: string; limit: number; offset: number },
) {
  const where = sql`where true
    ${filter.spaceId ? sql`and space_id = ${filter.spaceId}` : sql``}
    ${filter.source ? sql`and source = ${filter.source}` : sql``}
    ${filter.tag ? sql`and ${hasTag(sql, sql`tags`, filter.tag)}` : sql``}`;
  return listPage<RefRow>(
    sql,
    { select: sql`${sql(columns)}`, from: sql`from refs ${where}`, orderBy: sql`created_at desc, id` },
    filter,
  );
}

export async function insertRef(sql: Db, ref: NewRef): Promise<RefRow> {
  const [row] = await sql<RefRow[]>`
    insert into refs (space_id, source, external_id, url, title, notes, tags)
    values (${ref.space_id}, ${ref.source}, ${ref.external_id}, ${ref.url ?? null}, ${ref.title ?? ''},
            ${ref.notes ?? ''}, ${ref.tags ?? []})
    returning ${sql(columns)}`;
  return row;
}

/**
 * Creates the ref of an external identity in its space or updates the one that exists there, in one statement
 * (concurrent upserts of one identity leave one row). Fields the payload leaves out keep their value. Identities are
 * unique per space: the same identity in another space is another ref, never a conflict.
 */
export async function upsertRef(sql: Db, ref: NewRef): Promise<{ row: RefRow; created: boolean }> {
  const [row] = await sql<(RefRow & { created: boolean })[]>`
    insert into refs (space_id, source, external_id, url, title, notes, tags)
    values (${ref.space_id}, ${ref.source}, ${ref.external_id}, ${ref.url ?? null}, ${ref.title ?? ''},
            ${ref.notes ?? ''}, ${ref.tags ?? []})
    on conflict (space_id, source, external_id) do update set
      url = case when ${ref.url !== undefined} then excluded.url else refs.url end,
      title = case when ${ref.title !== undefined} then excluded.title else refs.title end,
      notes = case when ${ref.notes !== undefined} then excluded.notes else refs.notes end,
      tags = case when ${ref.tags !== undefined} then excluded.tags else refs.tags end,
      updated_at = now()
    returning ${sql(columns)}, (xmax = 0) as created`;
  const { created, ...rest } = row;
  return { row: rest, created };
}

export async function updateRef(
  sql: Db,
  id: string,
  fields: {
    source?: string;
    external_id?: string;
    url?: string | null;
    title?: string;
    notes?: string;
    tags?: string[];
  },
): Promise<RefRow | undefined> {
  if (Object.keys(fields).length === 0) return findRef(sql, id);
  const [row] = await sql<RefRow[]>`
    update refs set ${sql(fields)}, updated_at = now() where id = ${id} returning ${sql(columns)}`;
  return row;
}

export async function deleteRef(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from refs where id = ${id}`;
  return result.count > 0;
}
