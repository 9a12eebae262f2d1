// Polling. Every minute feeds.poll claims the enabled feeds that are due and queues one feeds.fetch each, so a slow
// or broken feed holds up only its own job. feeds.fetch reads the feed through the guarded client with the
// validators of its last answer (a 304 changes nothing), stores the items it has not seen and, with capture "all",
// captures their links in the same transaction. A failure (refused address, HTTP error, not a feed) is recorded on
// the feed, which is backed off (store.ts recordFailed); the job itself succeeds, so nothing retries behind it.
import { createHash } from 'node:crypto';
import { HubError } from '../../lib/errors.ts';
import { safeFetch } from '../../lib/safe-fetch.ts';
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { captureIn } from '../capture/accept.ts';
import { fetchFailure, ingestFetchOptions } from '../capture/fetching.ts';
import { checkCaptureUrl } from '../capture/routing.ts';
import { readFeed } from './parse.ts';
import { feedsFetchTask, feedsPollTask } from './schema.ts';
import {
  claimDueFeeds,
  type FeedRow,
  findFeed,
  insertItem,
  recordFailed,
  recordPolled,
  setItemCapture,
} from './store.ts';

const accept =
  'application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, ' +
  'application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5';

export interface PollReport {
  status: 'updated' | 'not_modified' | 'failed' | 'skipped';
  added: number;
  captured: number;
  error?: string;
}

/** Queues a fetch of every due feed, each claimed in the same transaction as its job. */
export async function queueDueFeeds(deps: JobDeps, now = new Date()): Promise<string[]> {
  return deps.sql.begin(async (tx) => {
    const ids = await claimDueFeeds(tx, now);
    for (const id of ids) await enqueue(tx, feedsFetchTask, { feed_id: id }, { jobKey: `feeds.fetch:${id}` });
    return ids;
  }) as Promise<string[]>;
}

/** Captures of one link share a key in the space, so a link seen twice (or in two feeds) is captured once. */
function captureKey(url: string): string {
  return `feed:${createHash('sha256').update(url).digest('hex')}`;
}

async function store(
  deps: JobDeps,
  feed: FeedRow,
  body: string,
  finalUrl: string,
  validators: {
    etag: string | null;
    last_modified: string | null;
  },
): Promise<PollReport> {
  const parsed = await readFeed(body, finalUrl);
  const report: PollReport = { status: 'updated', added: 0, captured: 0 };
  await deps.sql.begin(async (tx) => {
    // Oldest first, so items added in one poll keep the feed's order by creation time.
    for (const entry of [...parsed.items].reverse()) {
      const added = await insertItem(tx, feed, entry);
      if (!added) continue;
      report.added++;
      if (feed.capture !== 'all' || !added.url) continue;
      let url: URL;
      try {
        url = checkCaptureUrl(added.url, deps.config);
      } catch (error) {
        // A link the guard refuses stays an item; only its capture is left out.
        if (error instanceof HubError) continue;
        throw error;
      }
      const result = await captureIn(tx, deps.config, {
        url,
        idempotency_key: captureKey(url.href),
        space_id: feed.space_id,
        title: added.title || null,
        via: 'webhook',
        tags: feed.tags,
      });
      if (!result.duplicate) report.captured++;
      await setItemCapture(tx, added.id, result.capture.id);
    }
    await recordPolled(tx, feed.id, { ...validators, title: parsed.title });
  });
  return report;
}

/** Reads one feed now; whatever goes wrong is recorded on the feed and reported, never thrown. */
export async function pollFeed(deps: JobDeps, feedId: string): Promise<PollReport> {
  const feed = await findFeed(deps.sql, feedId);
  if (!feed?.enabled) return { status: 'skipped', added: 0, captured: 0 };
  const headers: Record<string, string> = { accept };
  if (feed.etag) headers['if-none-match'] = feed.etag;
  if (feed.last_modified) headers['if-modified-since'] = feed.last_modified;
  try {
    let response: Awaited<ReturnType<typeof safeFetch>>;
    try {
      response = await safeFetch(feed.url, { ...ingestFetchOptions(deps.config), headers });
    } catch (error) {
      throw fetchFailure(error, 'fetch failed');
    }
    if (response.status === 304) {
      await recordPolled(deps.sql, feed.id, {
        etag: feed.etag,
        last_modified: feed.last_modified,
        title: null,
      });
      return { status: 'not_modified', added: 0, captured: 0 };
    }
    if (response.status !== 200) throw new Error(`${response.url} answered HTTP ${response.status}`);
    return await store(deps, feed, response.body.toString('utf8'), response.url, {
      etag: response.headers.etag ?? null,
      last_modified: response.headers['last-modified'] ?? null,
    });
  } catch (error) {
    const message = (error as Error).message;
    await recordFailed(deps.sql, feed.id, message);
    return { status: 'failed', added: 0, captured: 0, error: message };
  }
}

export const feedTasks: DomainTask[] = [
  runs(feedsPollTask, (deps) => async (_payload, helpers) => {
    const ids = await queueDueFeeds(deps);
    if (ids.length > 0) helpers.logger.info(`feeds: ${ids.length} due, queued`);
  }),
  runs(feedsFetchTask, (deps) => async (payload, helpers) => {
    const report = await pollFeed(deps, payload.feed_id);
    if (report.status === 'failed') helpers.logger.warn(`feed ${payload.feed_id}: ${report.error}`);
    else
      helpers.logger.info(
        `feed ${payload.feed_id}: ${report.status}, ${report.added} new, ${report.captured} captured`,
      );
  }),
];

export const feedsCron: DomainCron = () => [
  cronItem({ id: 'feeds.poll', task: feedsPollTask, schedule: '* * * * *', payload: {} }),
];
