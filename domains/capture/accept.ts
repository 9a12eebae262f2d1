// A capture: record the URL under its idempotency key and queue the job that ingests it, in one transaction, so a
// key maps to exactly one capture and one job however many requests race with it. Keys are unique per space: the
// same key in another space is another capture, so a key never tells anything about a space the caller cannot see.
import type { Config } from '../../config/index.ts';
import { hubError } from '../../lib/errors.ts';
import { agentCanReachSpace, type Principal } from '../../plugins/auth.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { defaultSpaceId } from '../spaces/inbox.ts';
import { type CaptureTask, captureOrigin, taskFor } from './routing.ts';
import { type CaptureAccepted, type IngestPayload, ingestUrlTask, ingestVideoTask } from './schema.ts';
import { type CaptureRow, findCaptureByKey, insertCapture, setCaptureJob, spaceExists } from './store.ts';

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

/**
 * Captures inside the caller's transaction, in a space the caller may reach (see targetSpace). The same key again in
 * that space answers the first capture when it is for the same URL; a key already used there for another URL is 409
 * IDEMPOTENCY_KEY_REUSED.
 */
export async function captureIn(
  tx: Db,
  config: Pick<Config, 'ingest'>,
  request: CaptureRequest,
): Promise<CaptureResult> {
  const task: CaptureTask = taskFor(request.url);
  const url = request.url.href;
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
    const existing = await findCaptureByKey(tx, request.space_id, request.idempotency_key);
    if (!existing) throw new Error(`capture with key ${request.idempotency_key} vanished`);
    if (existing.url !== url) {
      throw hubError(
        'IDEMPOTENCY_KEY_REUSED',
        `this idempotency_key was already used in this space to capture another URL (${existing.url})`,
      );
    }
    return { capture: existing, duplicate: true };
  }
  const payload: IngestPayload = {
    capture_id: row.id,
    url,
    space_id: row.space_id,
    title: row.title,
    origin: captureOrigin(task, request.via),
    ...(request.tags?.length ? { tags: request.tags } : {}),
    captured_at: row.created_at.toISOString(),
  };
  const job = await enqueue(tx, task === 'ingest.video' ? ingestVideoTask : ingestUrlTask, payload, {
    jobKey: `capture:${row.id}`,
    maxAttempts: config.ingest.maxAttempts,
  });
  return { capture: await setCaptureJob(tx, row.id, job.id), duplicate: false };
}

/** captureIn in a transaction of its own (the webhook and the linkding pull, which act for nobody in particular). */
export async function capture(
  sql: Sql,
  config: Pick<Config, 'ingest'>,
  request: CaptureRequest,
): Promise<CaptureResult> {
  return sql.begin((tx) => captureIn(tx, config, request)) as Promise<CaptureResult>;
}

/**
 * The space a capture or upload goes to: the one named (it must exist and, for a scoped agent, be its own; any other
 * answers as if it did not exist), or the "Inbox" space. A null principal is the hub itself.
 */
export async function targetSpace(
  tx: Db,
  principal: Principal | null,
  spaceId: string | undefined,
): Promise<string> {
  if (spaceId === undefined) return defaultSpaceId(tx);
  const reachable = principal === null || agentCanReachSpace(principal, spaceId);
  if (!reachable || !(await spaceExists(tx, spaceId))) {
    throw hubError('SPACE_NOT_FOUND', spaceId);
  }
  return spaceId;
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
