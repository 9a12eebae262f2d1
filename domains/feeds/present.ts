import type { Feed } from './schema.ts';
import type { FeedRow } from './store.ts';

/** A feed as the API and the tools show it: its validators are the hub's business. */
export function present({ etag: _etag, last_modified: _lastModified, ...feed }: FeedRow): Feed {
  return feed;
}
