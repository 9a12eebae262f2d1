// A space's captured documents: listed beside its page tree, and one read with its captured text rendered as
// Markdown through the app's sanitiser.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { ago, markdown } from '../../lib.ts';
import { failed } from '../../state.ts';
import type { SourceDoc } from '../../types.ts';

const originLabel: Record<SourceDoc['origin'], string> = {
  url: 'Captured link',
  video: 'Video',
  webhook: 'Bookmark',
  upload: 'Upload',
};

/** A space's documents, most recently captured first: the list beside its page tree. */
export function DocumentList({ spaceId, selected }: { spaceId: string; selected?: string }) {
  const listed = useData(
    () => ok(api.GET('/api/source-docs', { params: { query: { space_id: spaceId, limit: 100 } } })),
    [spaceId],
  );
  if (!listed.data) return null;
  const documents = listed.data.items;
  if (documents.length === 0) {
    return <p class="muted">No documents yet. Capture a link or drop a file on the Capture screen.</p>;
  }
  return (
    <>
      <ul class="tree" aria-label="Documents">
        {documents.map((doc) => (
          <li key={doc.id} class={doc.id === selected ? 'selected' : ''}>
            <a href={`/knowledge/doc/${doc.id}`} aria-current={doc.id === selected ? 'page' : undefined}>
              <Icon name={doc.origin === 'upload' ? 'file' : 'link'} size={15} />
              {doc.title || doc.url || 'Untitled document'}
            </a>
          </li>
        ))}
      </ul>
      {listed.data.total > documents.length && (
        <p class="muted small">
          The {documents.length} newest of {listed.data.total}; search finds the others.
        </p>
      )}
    </>
  );
}

function Source({ doc }: { doc: SourceDoc }) {
  const filename = typeof doc.metadata.filename === 'string' ? doc.metadata.filename : null;
  if (doc.url) {
    return (
      <a href={doc.url} rel="noreferrer noopener" target="_blank" class="doc-source">
        {doc.url}
      </a>
    );
  }
  return filename ? <span class="doc-source">{filename}</span> : null;
}

/** One captured document: its title, where it came from, and its text. Opening it marks it read. */
export function DocumentView({ doc }: { doc: SourceDoc }) {
  const readAt = useSignal(doc.read_at);
  async function mark(read: boolean) {
    const saved = await ok(
      api.PATCH('/api/source-docs/{id}', { params: { path: { id: doc.id } }, body: { read } }),
    ).catch(failed);
    if (saved && 'read_at' in saved) readAt.value = saved.read_at;
  }
  useEffect(() => {
    readAt.value = doc.read_at;
    if (!doc.read_at) mark(true);
  }, [doc.id]);

  return (
    <article class="panel page-view" aria-label={doc.title || 'Document'}>
      <div class="panel-head">
        <h2 class="page-title">{doc.title || doc.url || 'Untitled document'}</h2>
        <span class="badge info">{originLabel[doc.origin]}</span>
        <span class="muted">captured {ago(doc.captured_at)}</span>
        <button type="button" class="small" onClick={() => mark(!readAt.value)}>
          {readAt.value ? 'Mark unread' : 'Mark read'}
        </button>
      </div>
      <p class="muted small doc-meta">
        <Source doc={doc} />
      </p>
      {doc.content.trim() ? (
        <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown(doc.content) }} />
      ) : (
        <p class="muted">This document has no text.</p>
      )}
    </article>
  );
}
