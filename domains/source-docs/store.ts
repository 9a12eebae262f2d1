// Source documents: what ingestion captured (URL fetches, uploads, webhooks, video transcripts). Ingestion writes
// through upsertSourceDocByUrl / insertSourceDoc; the REST routes read, edit and delete.
import type { Static } from 'typebox';
import { defined } from '../../lib/defined.ts';
import { listPage } from '../../lib/list-page.ts';
import { hasTag } from '../../lib/tags.ts';
import type { Db } from '../../plugins/db.ts';
import type { SourceDoc } from './schema.ts';

export type SourceDocOrigin = 'url' | 'upload' | 'webhook' | 'video';

/** A row as the API shows it: the SourceDoc schema's type. */
export type SourceDocRow = Static<typeof SourceDoc>;

/** A list entry: everything but the content, which can be large. */
export type SourceDocSummary = Omit<SourceDocRow, 'content'> & { content_length: number };

export interface NewSourceDoc {
  space_id: string;
  url: string | null;
  title: string;
  content: string;
  content_type: string;
  origin: SourceDocOrigin;
  metadata?: Record<string, unknown>;
  captured_at?: Date | string;
}

export interface SourceDocPatch {
  title?: string;
  content?: string;
  content_type?: string;
  url?: string | null;
  metadata?: Record<string, unknown>;
  /** true marks it read now (a read one keeps its time); false marks it unread. */
  read?: boolean;
}

const columns = [
  'id',
  'space_id',
  'url',
  'title',
  'content',
  'content_type',
  'origin',
  'captured_at',
  'metadata',
  'read_at',
  'created_at',
  'updated_at',
];
const summaryColumns = columns.filter((column) => column !== 'content');

/** A document's tags are its metadata's `tags` (what a capture or a bookmark service gave it). */
const tagsOf = (sql: Db) =>
  sql`array(select jsonb_array_elements_text(case jsonb_typeof(metadata -> 'tags')
                                               when 'array' then metadata -> 'tags' else '[]' end))`;
const selected = (sql: Db) => sql`${sql(columns)}, ${tagsOf(sql)} as tags`;

/** Inserts or refreshes the document of a URL in a space, atomically (one row per space and URL). */
export async function upsertSourceDocByUrl(
  sql: Db,
  doc: NewSourceDoc & { url: string; origin: Exclude<SourceDocOrigin, 'upload'> },
): Promise<SourceDocRow> {
  const [row] = await sql<SourceDocRow[]>`
    insert into source_docs (space_id, url, title, content, content_type, origin, captured_at, metadata)
    values (${doc.space_id}, ${doc.url}, ${doc.title}, ${doc.content}, ${doc.content_type}, ${doc.origin},
            ${doc.captured_at ?? new Date()}, ${sql.json((doc.metadata ?? {}) as never)})
    on conflict (space_id, url) do update set
      title = excluded.title, content = excluded.content, content_type = excluded.content_type,
      origin = excluded.origin, captured_at = excluded.captured_at, metadata = excluded.metadata,
      updated_at = now()
    returning ${selected(sql)}`;
  return row;
}

/** Inserts a new document; a URL already captured in the space is a unique violation (409). */
export async function insertSourceDoc(sql: Db, doc: NewSourceDoc): Promise<SourceDocRow> {
  const [row] = await sql<SourceDocRow[]>`
    insert into source_docs (space_id, url, title, content, content_type, origin, captured_at, metadata)
    values (${doc.space_id}, ${doc.url}, ${doc.title}, ${doc.content}, ${doc.content_type}, ${doc.origin},
            ${doc.captured_at ?? new Date()}, ${sql.json((doc.metadata ?? {}) as never)})
    returning ${selected(sql)}`;
  return row;
}

export async function findSourceDoc(sql: Db, id: string): Promise<SourceDocRow | undefined> {
  const [row] = await sql<SourceDocRow[]>`select ${selected(sql)} from source_docs where id = ${id}`;
  return row;
}

/** The row locked for the rest of the transaction, for an update or delete that checks it first. */
export async function lockSourceDoc(sql: Db, id: string): Promise<SourceDocRow | undefined> {
  const [row] = await sql<
    SourceDocRow[]
  >`select ${selected(sql)} from source_docs where id = ${id} for update`;
  return row;
}

export async function listSourceDocs(
  sql: Db,
  filter: {
    spaceId?: string;
    origin?: SourceDocOrigin;
    tag?: string;
    unread?: boolean;
    limit: number;
    offset: number;
  },
) {
  const where = sql`where true
    ${filter.unread ? sql`and read_at is null` : sql``}
    ${filter.spaceId ? sql`and space_id = ${filter.spaceId}` : sql``}
    ${filter.origin ? sql`and origin = ${filter.origin}` : sql``}
    ${filter.tag ? sql`and ${hasTag(sql, tagsOf(sql), filter.tag)}` : sql``}`;
  return listPage<SourceDocSummary>(
    sql,
    {
      select: sql`${sql(summaryColumns)}, ${tagsOf(sql)} as tags, length(content)::int as content_length`,
      from: sql`from source_docs ${where}`,
      orderBy: sql`captured_at desc, id`,
    },
    filter,
  );
}

export async function updateSourceDoc(
  sql: Db,
  id: string,
  patch: SourceDocPatch,
): Promise<SourceDocRow | undefined> {
  const { read, ...rest } = patch;
  const fields: Record<string, unknown> = defined(rest);
  if (patch.metadata) fields.metadata = sql.json(patch.metadata as never);
  if (Object.keys(fields).length === 0 && read === undefined) return findSourceDoc(sql, id);
  const readAt =
    read === undefined ? sql`read_at` : read ? sql`coalesce(read_at, now())` : sql`null::timestamptz`;
  // Reading is not an edit: read state alone leaves updated_at as it was.
  const [row] = Object.keys(fields).length
    ? await sql<SourceDocRow[]>`
        update source_docs set ${sql(fields)}, updated_at = now(), read_at = ${readAt}
        where id = ${id} returning ${selected(sql)}`
    : await sql<SourceDocRow[]>`
        update source_docs set read_at = ${readAt} where id = ${id} returning ${selected(sql)}`;
  return row;
}

export async function deleteSourceDoc(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from source_docs where id = ${id}`;
  return result.count > 0;
}
