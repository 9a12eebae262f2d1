// ingest.url and ingest.video: fetch through the guarded client, extract, and store or refresh the source
// document of the URL in its space. Both are idempotent (the document is upserted on space and URL), so a job that
// runs twice, say after a crash, still leaves one document.
import type { JobHelpers } from 'graphile-worker';
import { type Extracted, ExtractionError, extractDocument, mediaType, sniffType } from '../../lib/extract.ts';
import { safeFetch } from '../../lib/safe-fetch.ts';
import { fittedTags } from '../../lib/tags.ts';
import { type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { PermanentJobError } from '../../worker/errors.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { upsertSourceDocByUrl } from '../source-docs/documents.ts';
import { recordEvent } from '../timeline/record.ts';
import { fetchFailure, ingestFetchOptions, statusFailure } from './fetching.ts';
import { syncLinkding } from './linkding.ts';
import { type IngestPayload, ingestUrlTask, ingestVideoTask, linkdingSyncTask } from './schema.ts';
import { completeCapture, failCapture, spaceExists } from './store.ts';
import { fetchOembed, runTranscriptCommand } from './video.ts';

function titleFromUrl(url: string): string {
  const parsed = new URL(url);
  const last = decodeURIComponent(parsed.pathname.split('/').filter(Boolean).at(-1) ?? '');
  return last ? `${parsed.hostname}: ${last}` : parsed.hostname;
}

async function fetchDocument(
  deps: JobDeps,
  url: string,
  attempt: number,
): Promise<Extracted & { meta: Record<string, unknown> }> {
  let response: Awaited<ReturnType<typeof safeFetch>>;
  try {
    response = await safeFetch(url, ingestFetchOptions(deps.config));
  } catch (error) {
    throw fetchFailure(error, 'fetch failed', attempt);
  }
  if (response.status >= 400) throw statusFailure(response.status, response.url, 'fetch failed');
  const declared = response.contentType;
  const type = sniffType(response.body, declared, new URL(response.url).pathname);
  if (!type) {
    throw new PermanentJobError(
      `unsupported document: ${response.url} is ${mediaType(declared) || 'of no declared type'} ` +
        '(HTML, text, Markdown and PDF are ingested)',
    );
  }
  let extracted: Extracted;
  try {
    extracted = await extractDocument(response.body, type, declared, deps.config.capture.documentMaxChars);
  } catch (error) {
    if (error instanceof ExtractionError) throw new PermanentJobError(`${response.url}: ${error.message}`);
    throw error;
  }
  const meta: Record<string, unknown> = {
    final_url: response.url,
    status: response.status,
    bytes: response.body.length,
  };
  if (response.redirects.length > 0) meta.redirects = response.redirects;
  return { ...extracted, meta };
}

async function ingestUrl(deps: JobDeps, payload: IngestPayload, attempt: number): Promise<void> {
  const document = await fetchDocument(deps, payload.url, attempt);
  await store(deps, payload, {
    title: payload.title ?? document.title ?? titleFromUrl(payload.url),
    content: document.content,
    content_type: document.content_type,
    metadata: { ...document.metadata, ...document.meta },
  });
}

async function ingestVideo(deps: JobDeps, payload: IngestPayload): Promise<void> {
  const oembed = await fetchOembed(deps.config, payload.url);
  const command = deps.config.capture.video.transcriptCommand;
  const transcript = command
    ? await runTranscriptCommand(command, payload.url, deps.config.capture.video.transcriptTimeoutMs)
    : ({ ok: false, reason: 'no transcript command configured (VIDEO_TRANSCRIPT_COMMAND)' } as const);
  const title = payload.title ?? oembed.title ?? titleFromUrl(payload.url);
  // Without a transcript the metadata is the content, so the video is still found by its title and channel.
  const content = transcript.ok
    ? transcript.text
    : [oembed.title, oembed.author_name, oembed.provider_name].filter(Boolean).join('\n');
  await store(deps, payload, {
    title,
    content,
    content_type: 'text/plain',
    metadata: {
      oembed,
      transcript: transcript.ok
        ? {
            status: 'included',
            source: transcript.source,
            ...(transcript.file ? { file: transcript.file } : {}),
          }
        : { status: 'unavailable', reason: transcript.reason },
    },
  });
}

async function store(
  deps: JobDeps,
  payload: IngestPayload,
  doc: { title: string; content: string; content_type: string; metadata: Record<string, unknown> },
): Promise<void> {
  await deps.sql.begin(async (tx) => {
    const row = await upsertSourceDocByUrl(tx, {
      space_id: payload.space_id,
      url: payload.url,
      title: doc.title,
      content: doc.content,
      content_type: doc.content_type,
      origin: payload.origin,
      metadata: {
        ...doc.metadata,
        capture_id: payload.capture_id,
        // A bookmark service's tags become the document's tags, made to fit the rules of tags.
        ...(payload.tags?.length ? { tags: fittedTags(payload.tags) } : {}),
      },
      captured_at: payload.captured_at ? new Date(payload.captured_at) : new Date(),
    });
    await completeCapture(tx, payload.capture_id, row.id);
    await recordEvent(tx, {
      kind: 'capture.done',
      title: `Captured “${doc.title}”`,
      subject: { type: 'capture', id: payload.capture_id },
      space_id: payload.space_id,
      data: { url: payload.url, source_doc_id: row.id, origin: payload.origin },
    });
  });
}

/** A capture given up: marked failed, and on the timeline in its space (none when the space is gone: nobody to tell). */
async function fail(deps: JobDeps, payload: IngestPayload, error: string): Promise<void> {
  await deps.sql.begin(async (tx) => {
    await failCapture(tx, payload.capture_id, error);
    if (!(await spaceExists(tx, payload.space_id))) return;
    await recordEvent(tx, {
      kind: 'capture.failed',
      severity: 'warning',
      title: `Capture of ${payload.url} failed: ${error}`,
      subject: { type: 'capture', id: payload.capture_id },
      space_id: payload.space_id,
      data: { url: payload.url, error, origin: payload.origin },
    });
  });
}

/** `attempt` counts from 1: DNS failures are given fewer attempts than the job's maximum (fetching.ts). */
type Ingest = (deps: JobDeps, payload: IngestPayload, attempt: number) => Promise<void>;

function executor(deps: JobDeps, ingest: Ingest) {
  return async (payload: IngestPayload, helpers: JobHelpers) => {
    try {
      if (!(await spaceExists(deps.sql, payload.space_id))) {
        throw new PermanentJobError(`the space ${payload.space_id} no longer exists`);
      }
      await ingest(deps, payload, helpers.job.attempts);
    } catch (error) {
      const final = error instanceof PermanentJobError || helpers.job.attempts >= helpers.job.max_attempts;
      if (final) await fail(deps, payload, (error as Error).message);
      throw error;
    }
  };
}

export const captureTasks: DomainTask[] = [
  runs(ingestUrlTask, (deps) => executor(deps, ingestUrl)),
  runs(ingestVideoTask, (deps) => executor(deps, ingestVideo)),
  runs(linkdingSyncTask, (deps) => async (_payload, helpers) => {
    const linkding = (await integrationSettings(deps, 'linkding'))?.settings;
    if (!linkding) {
      throw new PermanentJobError(
        'linkding is not configured (LINKDING_URL and LINKDING_TOKEN, or Settings → Integrations)',
      );
    }
    const report = await syncLinkding(deps, linkding, { warn: (message) => helpers.logger.warn(message) });
    helpers.logger.info(
      `linkding: ${report.read} bookmarks read, ${report.captured} captured, ${report.duplicates} already ` +
        `captured, ${report.skipped} skipped`,
    );
  }),
];
