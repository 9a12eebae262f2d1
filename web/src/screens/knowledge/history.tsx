// A page's History panel: its versions, newest first, each with who made it (the owner, an agent writing
// directly, or the owner's approval of an agent's proposal), when and how big; one picked shows its text and what
// differs from the current text, and can be restored (after a question) as a new version.
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { authorName, useAgents } from '../../components/author.ts';
import { Confirm } from '../../components/Dialog.tsx';
import { Diff } from '../../components/Diff.tsx';
import { useData } from '../../data.ts';
import { ago, dateTime } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Page, PageVersion } from '../../types.ts';

/** A page as one text, so a comparison shows a changed title too. */
export function pageText(page: { title: string; body: string }): string {
  return `# ${page.title}\n\n${page.body}`;
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`;
}

export function PageHistory({ page, onRestored }: { page: Page; onRestored: () => void }) {
  const versions = useData(
    () =>
      ok(api.GET('/api/pages/{id}/versions', { params: { path: { id: page.id }, query: { limit: 100 } } })),
    [page.id, page.updated_at],
  );
  const agents = useAgents();
  const chosen = useSignal<number | null>(null);
  const asking = useSignal(false);
  const n = chosen.value;
  const version = useData(
    () =>
      n === null
        ? Promise.resolve(null)
        : ok(api.GET('/api/pages/{id}/versions/{n}', { params: { path: { id: page.id, n } } })),
    [page.id, n],
  );
  const items = versions.data?.items ?? [];
  const shown = version.data && version.data.n === n ? version.data : null;

  async function restore(yes: boolean) {
    asking.value = false;
    if (!yes || n === null) return;
    await ok(api.POST('/api/pages/{id}/versions/{n}/restore', { params: { path: { id: page.id, n } } })).then(
      () => {
        toast(`Version ${n} restored`, 'success');
        chosen.value = null;
        onRestored();
      },
      failed,
    );
  }

  return (
    <section class="history" aria-label="History">
      <h3>History</h3>
      {items.length === 0 && !versions.loading && <p class="muted">No versions kept.</p>}
      <ul class="list versions">
        {items.map((item: PageVersion) => (
          <li key={item.n}>
            <button type="button" aria-pressed={item.n === n} onClick={() => (chosen.value = item.n)}>
              <strong>Version {item.n}</strong> {item.current && <span class="badge success">current</span>}{' '}
              <span>{authorName(item.author, agents)}</span>{' '}
              <span class="muted" title={dateTime(item.created_at)}>
                {ago(item.created_at)}
              </span>{' '}
              <span class="muted">{size(item.size)}</span>
              {item.restored_from !== null && (
                <span class="muted small"> restored from {item.restored_from}</span>
              )}
            </button>
          </li>
        ))}
      </ul>
      {shown && (
        <section class="version" aria-label={`Version ${shown.n}`}>
          <div class="panel-head">
            <h4>
              Version {shown.n}: {shown.title}
            </h4>
            {!shown.current && (
              <button type="button" class="primary" onClick={() => (asking.value = true)}>
                Restore version {shown.n}
              </button>
            )}
          </div>
          <pre class="version-text">{shown.body}</pre>
          <Diff before={pageText(shown)} after={pageText(page)} label={`Version ${shown.n} → current text`} />
        </section>
      )}
      {asking.value && n !== null && (
        <Confirm
          question={`Restore version ${n}? The current text stays in the history.`}
          action="Restore"
          onAnswer={restore}
        />
      )}
    </section>
  );
}
