// Feeds and their items. A feed is due when enabled and its next_poll_at has passed; polling claims it by moving
// next_poll_at on, so the minute's tick never queues a feed twice while its fetch is still waiting or running.
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';
import type { Feed, FeedItem } from './schema.ts';

export type FeedRow = Feed & { etag: string | null; last_modified: string | null };

const feedColumns = (sql: Db) => sql`
  f.id, f.url, f.title, f.space_id, f.tags, f.interval_minutes, f.capture, f.enabled, f.next_poll_at,
  f.last_polled_at, f.error, f.failures, f.etag, f.last_modified, f.created_at, f.updated_at,
  (select count(*)::int from feed_items i where i.feed_id = f.id and i.read_at is null) as unread`;

const itemColumns = [
  'id',
  'feed_id',
  'space_id',
  'guid',
  'url',
  'title',
  'summary',
  'published_at',
  'tags',
  'read_at',
  'capture_id',
  'created_at',
];

export async function findFeed(sql: Db, id: string): Promise<FeedRow | undefined> {
  const [row] = await sql<FeedRow[]>`select ${feedColumns(sql)} from feeds f where f.id = ${id}`;
  return row;
}

export async function listFeeds(sql: Db, filter: { spaceId?: string; limit: number; offset: number }) {
  return listPage<FeedRow>(
    sql,
    {
      select: feedColumns(sql),
      from: sql`from feeds f ${filter.spaceId ? sql`where f.space_id = ${filter.spaceId}` : sql``}`,
      orderBy: sql`lower(f.title), f.url, f.id`,
    },
    filter,
  );
}

/** Every feed, for the OPML export. */
export async function allFeeds(sql: Db, spaceId?: string): Promise<FeedRow[]> {
  return sql<FeedRow[]>`
    select ${feedColumns(sql)} from feeds f ${spaceId ? sql`where f.space_id = ${spaceId}` : sql``}
    order by lower(f.title), f.url, f.id`;
}

export interface NewFeed {
  url: string;
  title: string;
  space_id: string;
  tags: string[];
  interval_minutes: number;
  capture: 'all' | 'none';
  enabled: boolean;
}

export async function insertFeed(sql: Db, feed: NewFeed): Promise<FeedRow> {
  const [{ id }] = await sql<{ id: string }[]>`insert into feeds ${sql(feed)} returning id`;
  return (await findFeed(sql, id)) as FeedRow;
}

/** The new feed, or undefined when its space already has that URL (the import leaves it as it is). */
export async function insertFeedIfNew(sql: Db, feed: NewFeed): Promise<FeedRow | undefined> {
  const [row] = await sql<{ id: string }[]>`
    insert into feeds ${sql(feed)} on conflict (space_id, url) do nothing returning id`;
  return row ? findFeed(sql, row.id) : undefined;
}

export async function updateFeed(
  sql: Db,
  id: string,
  fields: Partial<NewFeed>,
): Promise<FeedRow | undefined> {
  const [row] = await sql<{ id: string }[]>`
    update feeds set ${sql(fields)}, updated_at = now(),
      -- A new address has nothing to do with the old one's validators or errors, and is read at once.
      (etag, last_modified, error, failures, next_poll_at) = (
        select case when moved then null else etag end, case when moved then null else last_modified end,
          case when moved then null else error end, case when moved then 0 else failures end,
          case when moved then now() else next_poll_at end
        from (select ${fields.url ?? null}::text is not null and ${fields.url ?? null}::text <> url as moved) m)
    where id = ${id} returning id`;
  return row ? findFeed(sql, row.id) : undefined;
}

export async function deleteFeed(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from feeds where id = ${id}`;
  return result.count > 0;
}

/** Claims the enabled feeds due at `now` (next_poll_at moved on by their interval) and answers their ids. */
export async function claimDueFeeds(sql: Db, now: Date): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update feeds set next_poll_at = ${now}::timestamptz + make_interval(mins => interval_minutes)
    where id in (
      select id from feeds where enabled and next_poll_at <= ${now} order by next_poll_at
      for update skip locked)
    returning id`;
  return rows.map((row) => row.id);
}

/** A good poll: the validators kept, the error cleared, the next poll one interval on. */
export async function recordPolled(
  sql: Db,
  id: string,
  validators: { etag: string | null; last_modified: string | null; title: string | null },
): Promise<void> {
  await sql`
    update feeds set etag = ${validators.etag}, last_modified = ${validators.last_modified},
      title = case when title = '' and ${validators.title}::text is not null then left(${validators.title}, 500) else title end,
      last_polled_at = now(), error = null, failures = 0,
      next_poll_at = now() + make_interval(mins => interval_minutes)
    where id = ${id}`;
}

/**
 * A failed poll: the error kept and the feed backed off, its interval doubled for each failure in a row (at most
 * 64 times, and never past a day beyond it).
 */
export async function recordFailed(sql: Db, id: string, error: string): Promise<void> {
  await sql`
    update feeds set error = left(${error}, 2000), failures = failures + 1, last_polled_at = now(),
      next_poll_at = now() + least(
        make_interval(mins => interval_minutes) * power(2, least(failures + 1, 6)),
        make_interval(mins => interval_minutes) + interval '1 day')
    where id = ${id}`;
}

export interface NewItem {
  guid: string;
  url: string | null;
  title: string;
  summary: string;
  published_at: Date | null;
}

/** The item, or undefined when the feed already has it (seen on an earlier poll). */
export async function insertItem(
  sql: Db,
  feed: { id: string; space_id: string; tags: string[] },
  item: NewItem,
): Promise<FeedItem | undefined> {
  const [row] = await sql<FeedItem[]>`
    insert into feed_items (feed_id, space_id, guid, url, title, summary, published_at, tags)
    values (${feed.id}, ${feed.space_id}, ${item.guid}, ${item.url}, ${item.title}, ${item.summary},
      ${item.published_at}, ${feed.tags})
    on conflict (feed_id, guid) do nothing
    returning ${sql(itemColumns)}`;
  return row;
}

export async function setItemCapture(sql: Db, id: string, captureId: string): Promise<void> {
  await sql`update feed_items set capture_id = ${captureId} where id = ${id}`;
}

export async function listItems(
  sql: Db,
  filter: { feedId: string; unread?: boolean; limit: number; offset: number },
) {
  return listPage<FeedItem>(
    sql,
    {
      select: sql`${sql(itemColumns)}`,
      from: sql`from feed_items where feed_id = ${filter.feedId}
        ${filter.unread ? sql`and read_at is null` : sql``}`,
      orderBy: sql`coalesce(published_at, created_at) desc, created_at desc, id`,
    },
    filter,
  );
}

export async function updateItem(
  sql: Db,
  feedId: string,
  itemId: string,
  fields: { read?: boolean; tags?: string[] },
): Promise<FeedItem | undefined> {
  const read =
    fields.read === undefined ? sql`read_at` : fields.read ? sql`coalesce(read_at, now())` : sql`null`;
  const [row] = await sql<FeedItem[]>`
    update feed_items set read_at = ${read}, tags = coalesce(${fields.tags ?? null}::text[], tags)
    where id = ${itemId} and feed_id = ${feedId} returning ${sql(itemColumns)}`;
  return row;
}
