// Trash: deleted pages, spaces, projects and references, newest first, each with what its delete took along, when
// and by whom; restored whole, or deleted for good after a question. Items older than the trash retention go by
// themselves.
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { authorName, useAgents } from '../../components/author.ts';
import { Confirm } from '../../components/Dialog.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Table } from '../../components/Table.tsx';
import { useData } from '../../data.ts';
import { ago, dateTime } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { TrashItem } from '../../types.ts';

/** The tables a delete takes rows of, in words (one, many); any other is named by its table. */
const words: Record<string, [string, string]> = {
  pages: ['page', 'pages'],
  page_versions: ['version', 'versions'],
  projects: ['project', 'projects'],
  tasks: ['task', 'tasks'],
  refs: ['reference', 'references'],
  project_refs: ['link', 'links'],
  source_docs: ['document', 'documents'],
  captures: ['capture', 'captures'],
  resources: ['resource', 'resources'],
  conversations: ['conversation', 'conversations'],
  messages: ['message', 'messages'],
  agent_tokens: ['agent token', 'agent tokens'],
};

/** What an item holds besides itself: "2 pages, 5 versions", or "nothing else". */
export function contentsOf(item: TrashItem): string {
  const parts = Object.entries(item.contents).map(([table, n]) => {
    const [one, many] = words[table] ?? [table.replaceAll('_', ' '), table.replaceAll('_', ' ')];
    return `${n} ${n === 1 ? one : many}`;
  });
  return parts.length > 0 ? parts.join(', ') : 'nothing else';
}

const kinds: Record<TrashItem['kind'], string> = {
  page: 'Page',
  space: 'Space',
  project: 'Project',
  ref: 'Reference',
};

export default function Trash() {
  const trash = useData(() => ok(api.GET('/api/trash', { params: { query: { limit: 100 } } })));
  const agents = useAgents();
  const purging = useSignal<TrashItem | null>(null);
  const items = trash.data?.items ?? [];

  async function restore(item: TrashItem) {
    await ok(api.POST('/api/trash/{id}/restore', { params: { path: { id: item.id } } })).then(
      () => toast(`"${item.title}" restored`, 'success'),
      failed,
    );
    await trash.reload();
  }
  async function purge(yes: boolean) {
    const item = purging.value;
    purging.value = null;
    if (!yes || !item) return;
    await ok(api.DELETE('/api/trash/{id}', { params: { path: { id: item.id } } })).then(
      () => toast(`"${item.title}" deleted for good`, 'success'),
      failed,
    );
    await trash.reload();
  }

  return (
    <div>
      <div class="page-head">
        <h1>Trash</h1>
        <button type="button" class="ghost" aria-label="Refresh" onClick={trash.reload}>
          <Icon name="refresh" size={15} />
        </button>
      </div>
      <section class="panel" aria-label="Deleted items">
        {items.length === 0 && !trash.loading ? (
          <p class="muted empty">
            The trash is empty. Deleted pages, spaces, projects and references wait here, with everything they
            held, until you restore them or they expire.
          </p>
        ) : (
          <Table
            rows={items}
            head={['Kind', 'Title', 'With it', 'Deleted', 'By', '']}
            row={(item) => (
              <tr key={item.id} data-trash-id={item.id}>
                <td>
                  <span class="badge">{kinds[item.kind]}</span>
                </td>
                <td>{item.title || <span class="muted">untitled</span>}</td>
                <td class="muted">{contentsOf(item)}</td>
                <td title={dateTime(item.deleted_at)}>{ago(item.deleted_at)}</td>
                <td>{authorName(item.deleted_by, agents)}</td>
                <td>
                  <div class="row">
                    <button
                      type="button"
                      class="primary small"
                      aria-label={`Restore: ${item.title}`}
                      onClick={() => restore(item)}
                    >
                      Restore
                    </button>
                    <button
                      type="button"
                      class="small danger"
                      aria-label={`Delete for good: ${item.title}`}
                      onClick={() => (purging.value = item)}
                    >
                      Delete for good
                    </button>
                  </div>
                </td>
              </tr>
            )}
          />
        )}
      </section>
      {purging.value && (
        <Confirm
          question={`Delete "${purging.value.title}" for good? It cannot be restored afterwards.`}
          action="Delete for good"
          onAnswer={purge}
        />
      )}
    </div>
  );
}
