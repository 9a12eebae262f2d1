// A resource or a reference of a space, as search opens it by its address.
import type { ComponentChildren } from 'preact';
import { ago, dateTime, markdown } from '../../lib.ts';
import type { Ref, Resource } from '../../types.ts';

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
