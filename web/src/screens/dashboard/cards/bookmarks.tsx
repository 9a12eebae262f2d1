// The bookmarks card: the refs of a space (those whose source is the card's tag, when it has one) as links.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { components } from '../../../api.d.ts';
import { api, ok } from '../../../client.ts';
import { failed } from '../../../state.ts';

type Ref = components['schemas']['Ref'];

export function BookmarksCard({ config }: { config: Record<string, unknown> }) {
  const refs = useSignal<Ref[] | null>(null);
  const spaceId = typeof config.space_id === 'string' ? config.space_id : undefined;
  const tag = typeof config.tag === 'string' ? config.tag : undefined;
  useEffect(() => {
    if (!spaceId) return;
    ok(api.GET('/api/refs', { params: { query: { space_id: spaceId, source: tag, limit: 100, offset: 0 } } }))
      .then((page) => {
        refs.value = page.items.filter((ref) => ref.url);
      })
      .catch(failed);
  }, [spaceId, tag]);
  if (!spaceId) return <p class="muted">Set the card's space_id.</p>;
  if (refs.value === null) return <p class="muted">Loading bookmarks…</p>;
  if (refs.value.length === 0) return <p class="muted">No bookmarks here yet.</p>;
  return (
    <ul class="bookmarks">
      {refs.value.map((ref) => (
        <li key={ref.id}>
          <a href={ref.url ?? undefined} target="_blank" rel="noopener noreferrer">
            {ref.title || ref.url}
          </a>
        </li>
      ))}
    </ul>
  );
}
