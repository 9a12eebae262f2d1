// Ctrl-K search from anywhere: as you type, one ranked search over every kind the hub indexes, shown grouped by kind
// with the matched words highlighted; a hit opens where it lives. The shell shows it in its dialog.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { paths } from '../api.d.ts';
import { api, ok } from '../client.ts';
import { snippetHtml } from '../lib.ts';
import { searchOpen } from '../state.ts';
import { Icon } from './Icon.tsx';

type Hit = paths['/api/search']['get']['responses'][200]['content']['application/json']['items'][number];

/** Every kind search answers (the compiler holds this to the API types), in the order shown, and where a hit opens. */
const kinds: Record<Hit['kind'], { label: string; href: (hit: Hit) => string }> = {
  pages: { label: 'Pages', href: (hit) => `/knowledge/page/${hit.id}` },
  projects: { label: 'Projects', href: (hit) => `/knowledge/project/${hit.id}` },
  tasks: { label: 'Tasks', href: (hit) => `/knowledge/task/${hit.id}` },
  resources: { label: 'Resources', href: (hit) => `/knowledge/resource/${hit.id}` },
  refs: { label: 'References', href: (hit) => `/knowledge/ref/${hit.id}` },
  source_docs: { label: 'Documents', href: (hit) => `/knowledge/doc/${hit.id}` },
  // A message lives in its conversation: a space's companion, or the global assistant's.
  messages: {
    label: 'Messages',
    href: (hit) => `${hit.space_id ? `/assistant/space/${hit.space_id}` : '/assistant'}#message-${hit.id}`,
  },
  // An app opens its own link, in a new tab (see open).
  apps: { label: 'Apps', href: (hit) => hit.url ?? '/' },
  // A feed item opens the article it links to, in a new tab, like an app.
  feed_items: { label: 'Feed items', href: (hit) => hit.url ?? '/' },
};

export default function SearchPalette() {
  const query = useSignal('');
  const hits = useSignal<Hit[] | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const { route } = useLocation();
  function open(hit: Hit) {
    searchOpen.value = false;
    if ((hit.kind === 'apps' || hit.kind === 'feed_items') && hit.url)
      window.open(hit.url, '_blank', 'noopener');
    else route(kinds[hit.kind].href(hit));
  }
  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    const q = query.value.trim();
    if (q === '') {
      hits.value = null;
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      ok(api.GET('/api/search', { params: { query: { q, limit: 30 } }, signal: controller.signal })).then(
        (page) => {
          hits.value = page.items;
        },
        () => undefined,
      );
    }, 120);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query.value]);

  const groups = (Object.keys(kinds) as Hit['kind'][])
    .map((kind) => ({ kind, items: (hits.value ?? []).filter((hit) => hit.kind === kind) }))
    .filter((group) => group.items.length > 0);

  return (
    <div class="palette">
      <div class="palette-input">
        <Icon name="search" />
        <input
          ref={input}
          type="search"
          aria-label="Search everything"
          placeholder="Search pages, projects, tasks, documents, messages…"
          value={query.value}
          onInput={(event) => (query.value = event.currentTarget.value)}
        />
        <kbd>Esc</kbd>
      </div>
      <div class="palette-results">
        {hits.value !== null && groups.length === 0 && <p class="muted empty">Nothing matches.</p>}
        {groups.map((group) => (
          <section key={group.kind} aria-label={kinds[group.kind].label}>
            <h2>{kinds[group.kind].label}</h2>
            <ul>
              {group.items.map((hit) => (
                <li key={hit.id}>
                  <button type="button" onClick={() => open(hit)}>
                    <strong>{hit.title || '(untitled)'}</strong>
                    <span class="snippet" dangerouslySetInnerHTML={{ __html: snippetHtml(hit.snippet) }} />
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </div>
  );
}
