// SQL of export and import. Export reads a space, or everything the owner has, in one read-only repeatable-read
// transaction (one consistent moment); import writes in the caller's transaction.
import type { Db, Sql } from '../../plugins/db.ts';

export interface PageRecord {
  id: string;
  parent_id: string | null;
  position: number;
  title: string;
  body: string;
  tags: string[];
  created_at: Date;
  updated_at: Date;
}

export interface ProjectRecord {
  id: string;
  name: string;
  status: string;
  research_notes: string;
  created_at: Date;
  updated_at: Date;
  tasks: { id: string; title: string; status: 'todo' | 'doing' | 'done' | 'cancelled'; notes: string }[];
}

export interface RefRecord {
  id: string;
  url: string | null;
  title: string;
  notes: string;
  tags: string[];
  created_at: Date;
  updated_at: Date;
}

export interface DocumentRecord {
  id: string;
  url: string | null;
  title: string;
  content: string;
  captured_at: Date;
  created_at: Date;
  updated_at: Date;
  tags: unknown;
}

export interface SpaceContent {
  space: { id: string; name: string };
  pages: PageRecord[];
  projects: ProjectRecord[];
  refs: RefRecord[];
  documents: DocumentRecord[];
}

/** The latest migration applied: what an export's schema_version says. */
export async function schemaVersion(sql: Db): Promise<number> {
  const [row] = await sql<
    { version: number | null }[]
  >`select max(version) as version from schema_migrations`;
  return row.version ?? 0;
}

/** A snapshot: `read` runs in one read-only repeatable-read transaction. */
export function snapshot<T>(sql: Sql, read: (tx: Db) => Promise<T>): Promise<T> {
  return sql.begin('isolation level repeatable read read only', read) as Promise<T>;
}

/** Everything of one space an export writes, or undefined when there is no such space. */
export async function spaceContent(sql: Db, spaceId: string): Promise<SpaceContent | undefined> {
  const [space] = await sql<
    { id: string; name: string }[]
  >`select id, name from spaces where id = ${spaceId}`;
  if (!space) return undefined;
  const pages = await sql<PageRecord[]>`
    select id, parent_id, position, title, body, tags, created_at, updated_at
    from pages where space_id = ${spaceId} order by position, title, id`;
  const projects = await sql<ProjectRecord[]>`
    select p.id, p.name, p.status, p.research_notes, p.created_at, p.updated_at,
      coalesce((select json_agg(json_build_object('id', t.id, 'title', t.title, 'status', t.status, 'notes', t.notes)
                                order by t.created_at, t.id)
                from tasks t where t.project_id = p.id), '[]') as tasks
    from projects p where p.space_id = ${spaceId} order by lower(p.name), p.id`;
  const refs = await sql<RefRecord[]>`
    select id, url, title, notes, tags, created_at, updated_at
    from refs where space_id = ${spaceId} order by created_at, id`;
  const documents = await sql<DocumentRecord[]>`
    select id, url, title, content, captured_at, created_at, updated_at, metadata -> 'tags' as tags
    from source_docs where space_id = ${spaceId} order by captured_at, id`;
  return { space, pages, projects, refs, documents };
}

/**
 * Everything the owner keeps, table by table, as the API names fields. Integration secrets are never read: each
 * stored one shows as { set: true }.
 */
export async function everything(sql: Db) {
  const [
    spaces,
    pages,
    projects,
    tasks,
    projectRefs,
    refs,
    resources,
    dependencies,
    documents,
    settings,
    integrations,
  ] = await Promise.all([
    sql`select id, name, description, created_at, updated_at from spaces order by created_at, id`,
    sql`select id, space_id, parent_id, position, title, body, tags, created_at, updated_at
          from pages order by space_id, parent_id nulls first, position, id`,
    sql`select id, space_id, name, status, research_status, research_notes, created_at, updated_at
          from projects order by space_id, created_at, id`,
    sql`select id, project_id, space_id, title, status, due_at, notes, created_at, updated_at
          from tasks order by project_id, created_at, id`,
    sql`select project_id, ref_id, created_at from project_refs order by project_id, ref_id`,
    sql`select id, space_id, source, external_id, url, title, notes, tags, created_at, updated_at
          from refs order by space_id, created_at, id`,
    sql`select id, space_id, name, kind, host, notes, monitoring, metadata, created_at, updated_at
          from resources order by space_id, created_at, id`,
    sql`select resource_id, depends_on_id, created_at from resource_dependencies order by resource_id, depends_on_id`,
    sql`select id, space_id, url, title, content, content_type, origin, captured_at, metadata, created_at, updated_at
          from source_docs order by space_id, captured_at, id`,
    sql`select key, value, updated_at from app_settings order by key`,
    sql`select kind, fields,
            coalesce((select jsonb_object_agg(name, '{"set": true}'::jsonb) from jsonb_object_keys(secrets) name),
                     '{}') as secrets,
            created_at, updated_at
          from integrations order by kind`,
  ]);
  return {
    spaces,
    pages,
    projects,
    tasks,
    project_refs: projectRefs,
    refs,
    resources,
    resource_dependencies: dependencies,
    source_docs: documents,
    settings,
    integrations,
  };
}

// Import.

/** Names the owner as the writer of this transaction, as page history records it. */
export async function writeAsOwner(sql: Db): Promise<void> {
  await sql`select set_config('hub.write_author', '{"kind":"owner"}', true)`;
}

export type ExistingPage = Omit<PageRecord, 'created_at' | 'updated_at'>;

export async function spacePages(sql: Db, spaceId: string): Promise<ExistingPage[]> {
  return sql<ExistingPage[]>`
    select id, parent_id, position, title, body, tags from pages where space_id = ${spaceId}
    order by position, title, id`;
}

export async function insertImportedPage(
  sql: Db,
  page: {
    space_id: string;
    parent_id: string | null;
    position: number;
    title: string;
    body: string;
    tags: string[];
    created_at: Date | undefined;
    updated_at: Date | undefined;
  },
): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into pages (space_id, parent_id, position, title, body, tags, created_at, updated_at)
    values (${page.space_id}, ${page.parent_id}, ${page.position}, ${page.title}, ${page.body}, ${page.tags},
            coalesce(${page.created_at ?? null}::timestamptz, now()),
            coalesce(${page.updated_at ?? null}::timestamptz, ${page.created_at ?? null}::timestamptz, now()))
    returning id`;
  return row.id;
}

export async function updateImportedPage(
  sql: Db,
  id: string,
  fields: { parent_id: string | null; position: number; title: string; body: string; tags: string[] },
): Promise<void> {
  await sql`
    update pages set parent_id = ${fields.parent_id}, position = ${fields.position}, title = ${fields.title},
      body = ${fields.body}, tags = ${fields.tags}, updated_at = now()
    where id = ${id}`;
}

export interface ExistingRef {
  id: string;
  title: string;
  notes: string;
  tags: string[];
}

/** The space's reference to `url` (any source: a bookmark may have come in through a capture or a sync). */
export async function refByUrl(sql: Db, spaceId: string, url: string): Promise<ExistingRef | undefined> {
  const [row] = await sql<ExistingRef[]>`
    select id, title, notes, tags from refs where space_id = ${spaceId} and url = ${url}
    order by created_at, id limit 1`;
  return row;
}

export async function insertImportedRef(
  sql: Db,
  ref: {
    space_id: string;
    external_id: string;
    url: string;
    title: string;
    notes: string;
    tags: string[];
    created_at: Date | undefined;
  },
): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into refs (space_id, source, external_id, url, title, notes, tags, created_at, updated_at)
    values (${ref.space_id}, 'bookmarks', ${ref.external_id}, ${ref.url}, ${ref.title}, ${ref.notes}, ${ref.tags},
            coalesce(${ref.created_at ?? null}::timestamptz, now()), now())
    returning id`;
  return row.id;
}

export async function updateImportedRef(
  sql: Db,
  id: string,
  fields: { title: string; notes: string; tags: string[] },
): Promise<void> {
  await sql`
    update refs set title = ${fields.title}, notes = ${fields.notes}, tags = ${fields.tags}, updated_at = now()
    where id = ${id}`;
}
