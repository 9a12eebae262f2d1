// The linkding pull. linkding sends no webhooks, so the hub asks it: every LINKDING_SCHEDULE (default every 15
// minutes) the `linkding.sync` job reads GET /api/bookmarks/?modified_since=<cursor> with `Authorization: Token
// <LINKDING_TOKEN>`, follows the paginated answer ({count, next, previous, results}) and captures each new or
// changed bookmark into the "Inbox" space. The capture key is the bookmark id and its date_modified, so a bookmark
// is captured once per change however often it is read; the cursor (the newest date_modified seen) is kept in the
// database and only moves forward once every page has been read.
// linkding is an upstream the owner configures, so it is called with a plain client (timeouts, TLS verified); the
// bookmarked URLs themselves are fetched later by ingest.url through the guarded client.
import { type Static, Type } from 'typebox';
import type { LinkdingConfig } from '../../config/capture.ts';
import { HubError } from '../../lib/errors.ts';
import { onFirstUse } from '../../lib/lazy.ts';
import { undici, upstreamAgent } from '../../lib/safe-fetch.ts';
import { Check } from '../../lib/typebox.ts';
import { cronItem, type DomainCron, type JobDeps } from '../../worker/contract.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { defaultSpaceId } from '../spaces/inbox.ts';
import { capture } from './accept.ts';
import { checkCaptureUrl } from './routing.ts';
import { linkdingSyncTask } from './schema.ts';
import { readSyncCursor, writeSyncCursor } from './store.ts';

const LinkdingBookmark = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  website_title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  tag_names: Type.Optional(Type.Array(Type.String())),
  date_modified: Type.String(),
});
const LinkdingPage = Type.Object({
  count: Type.Integer(),
  next: Type.Union([Type.String(), Type.Null()]),
  previous: Type.Union([Type.String(), Type.Null()]),
  results: Type.Array(Type.Unknown()),
});

const pageSize = 100;
// A bound against a misbehaving server that keeps answering `next`: 100 pages of 100 bookmarks per run; the cursor
// only advances past what was read, so a larger backlog is picked up by the next runs.
const maxPages = 100;
const timeouts = { headersTimeout: 10_000, bodyTimeout: 30_000 };
// linkding is the owner's, and so are the `next` page URLs it answers with: the LAN is fine, cloud metadata never.
const dispatcher = onFirstUse(() => upstreamAgent());
const source = 'linkding';

export interface SyncReport {
  read: number;
  captured: number;
  duplicates: number;
  skipped: number;
}

/** The first page's URL: the bookmarks modified since `cursor` (all of them on the first run). */
export function firstPageUrl(config: LinkdingConfig, cursor: Date | null): URL {
  const url = new URL('api/bookmarks/', config.url.endsWith('/') ? config.url : `${config.url}/`);
  url.searchParams.set('limit', String(pageSize));
  if (cursor) url.searchParams.set('modified_since', cursor.toISOString());
  return url;
}

async function readPage(config: LinkdingConfig, url: URL): Promise<Static<typeof LinkdingPage>> {
  const res = await undici().request(url, {
    method: 'GET',
    headers: { authorization: `Token ${config.token}`, accept: 'application/json' },
    ...timeouts,
    dispatcher: dispatcher(),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) {
    throw new Error(`linkding answered HTTP ${res.statusCode} for ${url.origin}${url.pathname}`);
  }
  let page: unknown;
  try {
    page = JSON.parse(text);
  } catch {
    throw new Error(`linkding's answer for ${url.origin}${url.pathname} is not JSON`);
  }
  if (!Check(LinkdingPage, page))
    throw new Error('linkding answered something that is not a page of bookmarks');
  return page;
}

function textOrUndefined(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, 500) : undefined;
}

/** One run: reads every page modified since the cursor and captures what it finds. */
export async function syncLinkding(
  deps: JobDeps,
  config: LinkdingConfig,
  log: { warn(message: string): void },
): Promise<SyncReport> {
  const report: SyncReport = { read: 0, captured: 0, duplicates: 0, skipped: 0 };
  const cursor = await readSyncCursor(deps.sql, source);
  let newest = cursor;
  const spaceId = await defaultSpaceId(deps.sql);
  const origin = new URL(config.url).origin;
  let url: URL | null = firstPageUrl(config, cursor);
  for (let pages = 0; url !== null && pages < maxPages; pages++) {
    const page = await readPage(config, url);
    for (const item of page.results) {
      report.read++;
      if (!Check(LinkdingBookmark, item)) {
        report.skipped++;
        log.warn('linkding sent a bookmark without id, url or date_modified; skipped');
        continue;
      }
      const modified = new Date(item.date_modified);
      if (!Number.isNaN(modified.getTime()) && (newest === null || modified > newest)) newest = modified;
      try {
        const result = await capture(deps.sql, deps.config, {
          url: checkCaptureUrl(item.url, deps.config),
          idempotency_key: `linkding:${item.id}:${item.date_modified}`.slice(0, 200),
          space_id: spaceId,
          title: textOrUndefined(item.title) ?? textOrUndefined(item.website_title) ?? null,
          via: 'webhook',
          tags: item.tag_names,
        });
        if (result.duplicate) report.duplicates++;
        else report.captured++;
      } catch (error) {
        // One refused URL (a private address, a bad scheme) must not hold back the bookmarks after it.
        if (!(error instanceof HubError)) throw error;
        report.skipped++;
        log.warn(`linkding bookmark ${item.id} not captured: ${error.message}`);
      }
    }
    // `next` is linkding's own absolute URL; it is only followed on the configured origin, with the token.
    const next: URL | null = page.next ? new URL(page.next, url) : null;
    url = next && next.origin === origin ? next : null;
  }
  if (newest !== null && (cursor === null || newest > cursor))
    await writeSyncCursor(deps.sql, source, newest);
  return report;
}

/** The recurring item: on linkding's schedule while it is configured (environment or Settings → Integrations). */
export const linkdingCron: DomainCron = () => [
  cronItem({
    id: 'linkding.sync',
    task: linkdingSyncTask,
    schedule: async (deps) => (await integrationSettings(deps, 'linkding'))?.settings.schedule ?? null,
    payload: {},
  }),
];
