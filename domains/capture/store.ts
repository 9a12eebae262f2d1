// Capture records: one per idempotency key and space, pointing at the job that ingests the URL and, once done, at the
// source document it produced.
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';
import type { CaptureTask } from './routing.ts';

export type CaptureState = 'queued' | 'completed' | 'failed' | 'cancelled';

export interface CaptureRow {
  id: string;
  idempotency_key: string;
  url: string;
  space_id: string;
  title: string | null;
  task: CaptureTask;
  job_id: string | null;
  via: 'api' | 'webhook';
  state: CaptureState;
  source_doc_id: string | null;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

const columns = (sql: Db) => sql`
  id, idempotency_key, url, space_id, title, task, job_id::text, via, state, source_doc_id, error, created_at,
  updated_at`;

export interface NewCapture {
  idempotency_key: string;
  url: string;
  space_id: string;
  title: string | null;
  task: CaptureTask;
  via: 'api' | 'webhook';
}

/** The new capture, or undefined when its space has the key (then nothing was written; see findCaptureByKey). */
export async function insertCapture(sql: Db, capture: NewCapture): Promise<CaptureRow | undefined> {
  const [row] = await sql<CaptureRow[]>`
    insert into captures (idempotency_key, url, space_id, title, task, via)
    values (${capture.idempotency_key}, ${capture.url}, ${capture.space_id}, ${capture.title}, ${capture.task},
      ${capture.via})
    on conflict (space_id, idempotency_key) do nothing
    returning ${columns(sql)}`;
  return row;
}

export async function findCaptureByKey(
  sql: Db,
  spaceId: string,
  key: string,
): Promise<CaptureRow | undefined> {
  const [row] = await sql<CaptureRow[]>`
    select ${columns(sql)} from captures where space_id = ${spaceId} and idempotency_key = ${key}`;
  return row;
}

export async function findCapture(sql: Db, id: string): Promise<CaptureRow | undefined> {
  const [row] = await sql<CaptureRow[]>`select ${columns(sql)} from captures where id = ${id}`;
  return row;
}

/** A row of the capture inbox: a capture (task and via set) or an upload (both null). */
export interface InboxRow {
  id: string;
  task: CaptureTask | null;
  via: 'api' | 'webhook' | null;
  url: string | null;
  filename: string | null;
  title: string | null;
  state: CaptureState;
  error: string | null;
  space_id: string;
  document_id: string | null;
  job_id: string | null;
  read_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface InboxFilter {
  state?: CaptureState;
  spaceId?: string;
  unread?: boolean;
  /** One entry of the inbox (a capture's id or an upload's document id). */
  id?: string;
}

/** The inbox's rows, captures and uploads together, before paging. */
function inboxRows(sql: Db, filter: InboxFilter) {
  const inSpace = (column: string) => (filter.spaceId ? sql`and ${sql(column)} = ${filter.spaceId}` : sql``);
  const isId = (column: string) => (filter.id ? sql`and ${sql(column)} = ${filter.id}` : sql``);
  // Once a capture has its document, the document's read state is the one shown (opening it marks it read).
  const captures = sql`
    select c.id, c.task, c.via, c.url, null::text as filename, coalesce(c.title, nullif(d.title, '')) as title,
      c.state, c.error, c.space_id, c.source_doc_id as document_id, c.job_id::text,
      case when d.id is null then c.read_at else d.read_at end as read_at, c.created_at, c.updated_at
    from captures c left join source_docs d on d.id = c.source_doc_id
    where true ${filter.state ? sql`and c.state = ${filter.state}` : sql``} ${inSpace('c.space_id')}
      ${isId('c.id')}`;
  const uploads = sql`
    select d.id, null::text, null::text, null::text, d.metadata->>'filename', nullif(d.title, ''), 'completed',
      null::text, d.space_id, d.id, null::text, d.read_at, d.created_at, d.updated_at
    from source_docs d where d.origin = 'upload' ${inSpace('d.space_id')} ${isId('d.id')}`;
  const withUploads = filter.state === undefined || filter.state === 'completed';
  return sql`(${captures} ${withUploads ? sql`union all ${uploads}` : sql``}) inbox`;
}

/**
 * Captures and uploads, newest first. An upload is stored at once as a source document of origin `upload`, so it
 * is listed from there, completed, with its file name.
 */
export async function listInbox(
  sql: Db,
  filter: InboxFilter & { limit: number; offset: number },
): Promise<{ items: InboxRow[]; total: number; unread: number }> {
  const unreadOnly = (rows: ReturnType<typeof inboxRows>, unread?: boolean) =>
    sql`from ${rows} ${unread ? sql`where read_at is null` : sql``}`;
  const page = await listPage<InboxRow>(
    sql,
    {
      select: sql`*`,
      from: unreadOnly(inboxRows(sql, filter), filter.unread),
      orderBy: sql`created_at desc, id desc`,
    },
    filter,
  );
  const [{ unread }] = await sql<{ unread: number }[]>`
    select count(*)::int as unread ${unreadOnly(inboxRows(sql, filter), true)}`;
  return { ...page, unread };
}

export async function findInboxEntry(sql: Db, id: string): Promise<InboxRow | undefined> {
  const [row] = await sql<InboxRow[]>`select * from ${inboxRows(sql, { id })}`;
  return row;
}

/**
 * Marks an inbox entry read (now, or kept if it was) or unread: a capture and the document it produced, or an
 * upload's document. False when there is no such entry.
 */
export async function markInboxEntry(sql: Db, id: string, read: boolean): Promise<boolean> {
  const readAt = read ? sql`coalesce(read_at, now())` : sql`null::timestamptz`;
  const [capture] = await sql<{ source_doc_id: string | null }[]>`
    update captures set read_at = ${readAt} where id = ${id} returning source_doc_id`;
  const [doc] = await sql`
    update source_docs set read_at = ${readAt}
    where id = ${capture ? capture.source_doc_id : id} ${capture ? sql`` : sql`and origin = 'upload'`}
    returning id`;
  return capture !== undefined || doc !== undefined;
}

export async function setCaptureJob(sql: Db, id: string, jobId: string): Promise<CaptureRow> {
  const [row] = await sql<CaptureRow[]>`
    update captures set job_id = ${jobId}, updated_at = now() where id = ${id} returning ${columns(sql)}`;
  return row;
}

export async function completeCapture(sql: Db, id: string, sourceDocId: string): Promise<void> {
  await sql`
    update captures set state = 'completed', source_doc_id = ${sourceDocId}, error = null, updated_at = now()
    where id = ${id}`;
}

export async function failCapture(sql: Db, id: string, error: string): Promise<void> {
  await sql`update captures set state = 'failed', error = ${error}, updated_at = now() where id = ${id}`;
}

export async function spaceExists(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql`select 1 from spaces where id = ${id}`;
  return row !== undefined;
}

/** Where a pull (linkding) stopped: the newest modification time it has read, or null before its first run. */
export async function readSyncCursor(sql: Db, source: string): Promise<Date | null> {
  const [row] = await sql<
    { cursor: Date }[]
  >`select cursor from capture_sync_cursors where source = ${source}`;
  return row?.cursor ?? null;
}

export async function writeSyncCursor(sql: Db, source: string, cursor: Date): Promise<void> {
  await sql`
    insert into capture_sync_cursors (source, cursor) values (${source}, ${cursor})
    on conflict (source) do update set cursor = greatest(capture_sync_cursors.cursor, excluded.cursor),
      updated_at = now()`;
}
