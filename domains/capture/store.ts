// Capture records: one per idempotency key, pointing at the job that ingests the URL and, once done, at the
// source document it produced.
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

/** The new capture, or undefined when the key exists (then nothing was written; see findCaptureByKey). */
export async function insertCapture(sql: Db, capture: NewCapture): Promise<CaptureRow | undefined> {
  const [row] = await sql<CaptureRow[]>`
    insert into captures (idempotency_key, url, space_id, title, task, via)
    values (${capture.idempotency_key}, ${capture.url}, ${capture.space_id}, ${capture.title}, ${capture.task},
      ${capture.via})
    on conflict (idempotency_key) do nothing
    returning ${columns(sql)}`;
  return row;
}

export async function findCaptureByKey(sql: Db, key: string): Promise<CaptureRow | undefined> {
  const [row] = await sql<CaptureRow[]>`select ${columns(sql)} from captures where idempotency_key = ${key}`;
  return row;
}

export async function findCapture(sql: Db, id: string): Promise<CaptureRow | undefined> {
  const [row] = await sql<CaptureRow[]>`select ${columns(sql)} from captures where id = ${id}`;
  return row;
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
