// Ctrl-K search from anywhere: as you type, one ranked search over pages, refs, source documents and messages,
// shown grouped by kind with the matched words highlighted.
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api, ok } from '../client.ts';
import { snippetHtml } from '../lib.ts';
import { navigate, searchOpen } from '../state.ts';
import { Icon } from './Icon.tsx';

interface Hit {
  kind: 'pages' | 'refs' | 'source_docs' | 'messages';
  id: string;
  title: string;
  snippet: string;
  space_id?: string;
}

const kindLabels: Record<Hit['kind'], string> = {
  pages: 'Pages',
  refs: 'References',
  source_docs: 'Source documents',
  messages: 'Messages',
};

function open(hit: Hit) {
  searchOpen.value = false;
  if (hit.kind === 'pages') navigate(`/knowledge/page/${hit.id}`);
  else if (hit.space_id) navigate(`/knowledge/space/${hit.space_id}`);
}

export default function SearchPalette() {
  const query = useSignal('');
  const hits = useSignal<Hit[] | null>(null);
  const input = useRef<HTMLInputElement>(null);
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
          hits.value = page.items as Hit[];
        },
        () => undefined,
      );
    }, 120);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query.value]);

  const groups = (Object.keys(kindLabels) as Hit['kind'][])
    .map((kind) => ({ kind, items: (hits.value ?? []).filter((hit) => hit.kind === kind) }))
    .filter((group) => group.items.length > 0);

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click on the backdrop closes the dialog; the keyboard has Escape
    <div
      class="overlay"
      onClick={(event) => {
        if (event.target === event.currentTarget) searchOpen.value = false;
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') searchOpen.value = false;
      }}
    >
      <div class="palette" role="dialog" aria-modal="true" aria-label="Search">
        <div class="palette-input">
          <Icon name="search" />
          <input
            ref={input}
            type="search"
            aria-label="Search everything"
            placeholder="Search pages, references, documents, messages…"
            value={query.value}
            onInput={(event) => (query.value = event.currentTarget.value)}
          />
          <kbd>Esc</kbd>
        </div>
        <div class="palette-results">
          {hits.value !== null && groups.length === 0 && <p class="muted empty">Nothing matches.</p>}
          {groups.map((group) => (
            <section key={group.kind} aria-label={kindLabels[group.kind]}>
              <h2>{kindLabels[group.kind]}</h2>
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
    </div>
  );
}
