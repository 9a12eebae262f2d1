// A capture: record the URL under its idempotency key and queue the job that ingests it, in one transaction, so a
// key maps to exactly one capture and one job however many requests race with it.
import type { Config } from '../../config.ts';
import type { Sql } from '../../plugins/db.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { type CaptureTask, taskFor } from './routing.ts';
import type { CaptureAccepted, IngestPayload } from './schema.ts';
import { type CaptureRow, findCaptureByKey, insertCapture, setCaptureJob } from './store.ts';

export interface CaptureRequest {
  /** Already checked with checkCaptureUrl. */
  url: URL;
  idempotency_key: string;
  space_id: string;
  title?: string | null;
  via: 'api' | 'webhook';
  tags?: string[];
}

export interface CaptureResult {
  capture: CaptureRow;
  duplicate: boolean;
}

export async function capture(
  sql: Sql,
  config: Pick<Config, 'ingestMaxAttempts'>,
  request: CaptureRequest,
): Promise<CaptureResult> {
  const task: CaptureTask = taskFor(request.url);
  const url = request.url.href;
  return sql.begin(async (tx) => {
    const row = await insertCapture(tx, {
      idempotency_key: request.idempotency_key,
      url,
      space_id: request.space_id,
      title: request.title ?? null,
      task,
      via: request.via,
    });
    if (!row) {
      // The insert waited for the transaction holding the key to commit, so its capture is visible now.
      const existing = await findCaptureByKey(tx, request.idempotency_key);
      if (!existing) throw new Error(`capture with key ${request.idempotency_key} vanished`);
      return { capture: existing, duplicate: true };
    }
    const payload: IngestPayload = {
      capture_id: row.id,
      url,
      space_id: row.space_id,
      title: row.title,
      origin: task === 'ingest.video' ? 'video' : request.via === 'webhook' ? 'webhook' : 'url',
      ...(request.tags?.length ? { tags: request.tags } : {}),
      captured_at: row.created_at.toISOString(),
    };
    const job = await enqueue(tx, task, payload, {
      jobKey: `capture:${row.id}`,
      maxAttempts: config.ingestMaxAttempts,
    });
    return { capture: await setCaptureJob(tx, row.id, job.id), duplicate: false };
  });
}

export function acceptedBody({ capture: row, duplicate }: CaptureResult): CaptureAccepted {
  return {
    capture_id: row.id,
    job_id: row.job_id ?? '',
    task: row.task,
    idempotency_key: row.idempotency_key,
    duplicate,
    url: row.url,
    space_id: row.space_id,
    title: row.title,
    state: row.state,
  };
}
