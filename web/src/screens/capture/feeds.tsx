// Feeds on the Capture screen: the feeds followed (with unread counts and the last poll's error), a form adding one
// by URL, and the selected feed's items, unread only on request; opening an item marks it read.
import { useSignal } from '@preact/signals';
import type { components } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import { UnreadOnly } from './unread-only.tsx';

type FeedItem = components['schemas']['FeedItem'];

export function Feeds() {
  const url = useSignal('');
  const busy = useSignal(false);
  const selected = useSignal<string | null>(null);
  const unreadOnly = useSignal(true);
  const feeds = useData(() => ok(api.GET('/api/feeds', { params: { query: { limit: 100 } } })), []);
  const feedId = selected.value ?? feeds.data?.items[0]?.id ?? null;
  const items = useData(
    () =>
      feedId
        ? ok(
            api.GET('/api/feeds/{id}/items', {
              params: {
                path: { id: feedId },
                query: { limit: 50, ...(unreadOnly.value ? { unread: true } : {}) },
              },
            }),
          )
        : Promise.resolve(null),
    [feedId, unreadOnly.value],
  );

  async function add(event: Event) {
    event.preventDefault();
    busy.value = true;
    try {
      const feed = await ok(api.POST('/api/feeds', { body: { url: url.value.trim() } }));
      url.value = '';
      selected.value = feed.id;
      toast('Feed added: it is read within a minute', 'success');
      await feeds.reload();
    } catch (error) {
      failed(error);
    } finally {
      busy.value = false;
    }
  }

  async function markRead(item: FeedItem) {
    if (item.read_at) return;
    try {
      await ok(
        api.PATCH('/api/feeds/{id}/items/{item_id}', {
          params: { path: { id: item.feed_id, item_id: item.id } },
          body: { read: true },
        }),
      );
      await Promise.all([items.reload(), feeds.reload()]);
    } catch (error) {
      failed(error);
    }
  }

  return (
    <div class="panel feeds">
      <div class="panel-head">
        <h2>Feeds</h2>
        <button type="button" class="ghost" onClick={() => feeds.reload()} aria-label="Refresh feeds">
          <Icon name="refresh" size={15} />
        </button>
      </div>
      <form class="row" onSubmit={add}>
        <label class="grow">
          Feed URL
          <input
            type="url"
            placeholder="https://…/feed.xml"
            value={url.value}
            onInput={(e) => (url.value = e.currentTarget.value)}
            required
          />
        </label>
        <button type="submit" disabled={busy.value}>
          Add feed
        </button>
      </form>
      {feeds.data && feeds.data.items.length === 0 && <p class="muted">No feeds yet.</p>}
      <ul class="feed-list">
        {feeds.data?.items.map((feed) => (
          <li key={feed.id}>
            <button
              type="button"
              class={`ghost ${feed.id === feedId ? 'selected' : ''}`}
              aria-pressed={feed.id === feedId}
              onClick={() => (selected.value = feed.id)}
            >
              {feed.title || feed.url} <span class="badge">{feed.unread}</span>
            </button>
            {feed.error && <div class="error small">{feed.error}</div>}
          </li>
        ))}
      </ul>
      {feedId && (
        <>
          <UnreadOnly value={unreadOnly} />
          {items.data && items.data.items.length === 0 && <p class="muted">Nothing to read.</p>}
          <ul class="feed-items">
            {items.data?.items.map((item) => (
              <li key={item.id} class={item.read_at ? 'read' : 'unread'}>
                {item.url ? (
                  <a href={item.url} target="_blank" rel="noopener noreferrer" onClick={() => markRead(item)}>
                    {item.title || item.url}
                  </a>
                ) : (
                  <strong>{item.title || item.guid}</strong>
                )}
                <span class="muted small"> · {ago(item.published_at ?? item.created_at)}</span>
                {item.summary && <div class="muted small">{item.summary.slice(0, 240)}</div>}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
