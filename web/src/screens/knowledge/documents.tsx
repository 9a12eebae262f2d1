// Knowledge beside pages and projects: a space's captured documents (listed, and one read with its captured text
// rendered as Markdown through the app's sanitiser), and one resource or reference opened from search.
import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { paths } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { ago, dateTime, markdown } from '../../lib.ts';
import { failed } from '../../state.ts';
import type { Ref, Resource, SourceDoc } from '../../types.ts';

type DocumentSummary =
  paths['/api/source-docs']['get']['responses'][200]['content']['application/json']['items'][number];

const originLabel: Record<SourceDoc['origin'], string> = {
  url: 'Captured link',
  video: 'Video',
  webhook: 'Bookmark',
  upload: 'Upload',
};

/** A space's documents, most recently captured first: the list beside its page tree. */
export function DocumentList({ spaceId, selected }: { spaceId: string; selected?: string }) {
  const documents = useSignal<DocumentSummary[] | null>(null);
  const total = useSignal(0);
  useEffect(() => {
    documents.value = null;
    ok(api.GET('/api/source-docs', { params: { query: { space_id: spaceId, limit: 100 } } })).then((page) => {
      documents.value = page.items;
      total.value = page.total;
    }, failed);
  }, [spaceId]);
  if (documents.value === null) return null;
  if (documents.value.length === 0) {
    return <p class="muted">No documents yet. Capture a link or drop a file on the Capture screen.</p>;
  }
  return (
    <>
      <ul class="tree" aria-label="Documents">
        {documents.value.map((doc) => (
          <li key={doc.id} class={doc.id === selected ? 'selected' : ''}>
            <a href={`/knowledge/doc/${doc.id}`} aria-current={doc.id === selected ? 'page' : undefined}>
              <Icon name={doc.origin === 'upload' ? 'file' : 'link'} size={15} />
              {doc.title || doc.url || 'Untitled document'}
            </a>
          </li>
        ))}
      </ul>
      {total.value > documents.value.length && (
        <p class="muted small">
          The {documents.value.length} newest of {total.value}; search finds the others.
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

/** One captured document: its title, where it came from, and its text. */
export function DocumentView({ doc }: { doc: SourceDoc }) {
  return (
    <article class="panel page-view" aria-label={doc.title || 'Document'}>
      <div class="panel-head">
        <h2 class="page-title">{doc.title || doc.url || 'Untitled document'}</h2>
        <span class="badge info">{originLabel[doc.origin]}</span>
        <span class="muted">captured {ago(doc.captured_at)}</span>
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

function Field({ name, children }: { name: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A resource (a machine, a service, a thing the space keeps track of), as search opens it. */
export function ResourceView({ resource }: { resource: Resource }) {
  return (
    <article class="panel page-view" aria-label={resource.name}>
      <div class="panel-head">
        <h2 class="page-title">{resource.name}</h2>
        <span class="badge info">{resource.kind}</span>
        <span class="muted">edited {ago(resource.updated_at)}</span>
      </div>
      <dl class="details">
        <Field name="Host">{resource.host ?? '—'}</Field>
        <Field name="Depends on">{resource.depends_on.length || 'nothing'}</Field>
        <Field name="Created">{dateTime(resource.created_at)}</Field>
      </dl>
      {resource.notes.trim() && (
        <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown(resource.notes) }} />
      )}
    </article>
  );
}

/** A reference (a link or an item of another service the space points to), as search opens it. */
export function RefView({ reference }: { reference: Ref }) {
  return (
    <article class="panel page-view" aria-label={reference.title || reference.url || 'Reference'}>
      <div class="panel-head">
        <h2 class="page-title">
          {reference.title || reference.url || `${reference.source}:${reference.external_id}`}
        </h2>
        <span class="badge info">{reference.source}</span>
        <span class="muted">edited {ago(reference.updated_at)}</span>
      </div>
      {reference.url && (
        <p class="muted small doc-meta">
          <a href={reference.url} rel="noreferrer noopener" target="_blank" class="doc-source">
            {reference.url}
          </a>
        </p>
      )}
      {reference.notes.trim() && (
        <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown(reference.notes) }} />
      )}
    </article>
  );
}
