import { type Static, Type } from 'typebox';
import {
  NullableTimestamp,
  PageQuery,
  Paginated,
  Patch,
  Timestamp,
  Uuid,
  WebUrl,
} from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

/** Tags of a feed or an item: trimmed, case-insensitively unique (tags.ts), at most 32 of at most 64 characters. */
export const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' }), {
  maxItems: 32,
});

export const CaptureMode = Type.Enum(['all', 'none']);

export const Feed = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    title: Type.String(),
    space_id: Uuid,
    tags: Type.Array(Type.String()),
    interval_minutes: Type.Integer(),
    capture: CaptureMode,
    enabled: Type.Boolean(),
    next_poll_at: Timestamp,
    last_polled_at: NullableTimestamp,
    error: Type.Union([Type.String(), Type.Null()]),
    failures: Type.Integer(),
    unread: Type.Integer(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Feed' },
);
export type Feed = Static<typeof Feed>;

const title = Type.String({ maxLength: 500 });
const interval = Type.Integer({ minimum: 5, maximum: 10080 });

export const CreateFeed = Type.Object(
  {
    url: WebUrl(4096),
    title: Type.Optional(title),
    space_id: Type.Optional(Uuid),
    tags: Type.Optional(Tags),
    interval_minutes: Type.Optional(interval),
    capture: Type.Optional(CaptureMode),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CreateFeed = Static<typeof CreateFeed>;

export const UpdateFeed = Patch({
  url: WebUrl(4096),
  title,
  space_id: Uuid,
  tags: Tags,
  interval_minutes: interval,
  capture: CaptureMode,
  enabled: Type.Boolean(),
});
export type UpdateFeed = Static<typeof UpdateFeed>;

export const FeedList = Paginated(Type.Ref('Feed'));
export const FeedListQuery = Type.Intersect([PageQuery, Type.Object({ space_id: Type.Optional(Uuid) })]);

export const FeedItem = Type.Object(
  {
    id: Uuid,
    feed_id: Uuid,
    space_id: Uuid,
    guid: Type.String(),
    url: Type.Union([Type.String(), Type.Null()]),
    title: Type.String(),
    summary: Type.String(),
    published_at: NullableTimestamp,
    tags: Type.Array(Type.String()),
    read_at: NullableTimestamp,
    capture_id: Type.Union([Uuid, Type.Null()]),
    created_at: Timestamp,
  },
  { $id: 'FeedItem' },
);
export type FeedItem = Static<typeof FeedItem>;

export const FeedItemList = Paginated(Type.Ref('FeedItem'));
export const FeedItemListQuery = Type.Intersect([
  PageQuery,
  Type.Object({ unread: Type.Optional(Type.Boolean({ description: 'true: only items not read yet' })) }),
]);
export const FeedItemParams = Type.Object({ id: Uuid, item_id: Uuid });
export const UpdateFeedItem = Patch({
  read: Type.Boolean({ description: 'true sets read_at to now (kept if already read); false clears it' }),
  tags: Tags,
});

export const ImportResult = Type.Object({
  created: Type.Integer({ description: 'feeds added' }),
  existing: Type.Integer({ description: 'feeds the space already had (left as they are)' }),
  feeds: Type.Array(Type.Ref('Feed')),
});
export const ImportQuery = Type.Object({ space_id: Type.Optional(Uuid) });

export const feedsPollTask = defineTask({
  name: 'feeds.poll',
  description: 'Queues feeds.fetch for every enabled feed that is due (every minute)',
  payload: Type.Object({}),
  maxAttempts: 1,
});

export const feedsFetchTask = defineTask({
  name: 'feeds.fetch',
  description:
    'Reads one feed (RSS, Atom or JSON Feed) with its validators; new items become feed items and, with capture ' +
    '"all", captures. A failure is recorded on the feed and backs it off.',
  payload: Type.Object({ feed_id: Uuid }),
  maxAttempts: 1,
});
