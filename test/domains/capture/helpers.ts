// Shared by the capture tests: capture a URL and wait for its job to finish, read what it stored.
import type { SourceDocRow } from '../../../domains/source-docs/store.ts';
import type { TestApp } from '../../helpers/app.ts';

export interface JobView {
  id: string;
  task: string;
  state: 'queued' | 'running' | 'failed' | 'completed';
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  payload: Record<string, unknown>;
}

export async function captureUrl(
  ta: TestApp,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<{ capture_id: string; job_id: string; task: string; space_id: string; duplicate: boolean }> {
  const res = await ta.asOwner({
    method: 'POST',
    url: '/api/capture',
    payload: { url, idempotency_key: `key:${url}:${JSON.stringify(extra)}`, ...extra },
  });
  if (res.statusCode !== 202) throw new Error(`capture of ${url} answered ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** Polls the jobs API until the job has completed or failed for good. */
export async function settled(ta: TestApp, jobId: string, timeoutMs = 30_000): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await ta.asOwner({ method: 'GET', url: `/api/jobs/${jobId}` });
    const job = res.json() as JobView;
    if (job.state === 'completed' || job.state === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish: ${res.body}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export type StoredDoc = Omit<SourceDocRow, 'captured_at' | 'created_at' | 'updated_at'>;

export async function docsAt(ta: TestApp, url: string): Promise<StoredDoc[]> {
  return ta.sql<StoredDoc[]>`
    select id, space_id, url, title, content, content_type, origin, metadata from source_docs where url = ${url}`;
}

export async function captureState(ta: TestApp, captureId: string) {
  const [row] = await ta.sql<{ state: string; error: string | null; source_doc_id: string | null }[]>`
    select state, error, source_doc_id from captures where id = ${captureId}`;
  return row;
}
