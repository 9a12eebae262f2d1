// An agent's proposal as the owner reads it: each field it sets, named in words, with what is there now beside what
// an update would make it (a longer text as the difference from the current one); a file by its name and size,
// never its encoded bytes.
import type { ComponentChildren } from 'preact';
import { api, ok } from '../client.ts';
import { useData } from '../data.ts';
import type { PendingChange } from '../types.ts';
import { Diff } from './Diff.tsx';

type Fields = Record<string, unknown>;

/** Ids and keys that say nothing to a reader (the card already names the space and the kind). */
const hidden = new Set(['space_id', 'idempotency_key', 'content_base64', 'mimetype']);
const longText = 120;

/** `due_at` → "Due at". */
export function fieldName(key: string): string {
  const words = key.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function isLong(value: unknown): value is string {
  return typeof value === 'string' && (value.length > longText || value.includes('\n'));
}

/** A value in words: text as it is, lists joined, nested fields one per line, nothing as "none". */
function Value({ value }: { value: unknown }): ComponentChildren {
  if (value === null || value === undefined || value === '') return <span class="muted">none</span>;
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (isLong(value))
    return <pre class="draft-body">{value.length > 600 ? `${value.slice(0, 600)}…` : value}</pre>;
  if (Array.isArray(value)) {
    return value.length === 0 ? (
      <span class="muted">none</span>
    ) : (
      value.map((item, i) => (
        <span key={i} class="chip">
          <Value value={item} />
        </span>
      ))
    );
  }
  if (typeof value === 'object') return <FieldList fields={value as Fields} />;
  return String(value);
}

/** Fields and their values, one per row. */
export function FieldList({ fields, before }: { fields: Fields; before?: Fields | null }) {
  const rows = Object.entries(fields).filter(([key]) => !hidden.has(key));
  if (rows.length === 0) return <p class="muted small">No fields.</p>;
  return (
    <dl class="fields">
      {rows.map(([key, value]) => (
        <div key={key}>
          <dt>{fieldName(key)}</dt>
          <dd>
            {before && typeof before[key] === 'string' && isLong(value) && (
              <Diff before={before[key]} after={value} label={`${fieldName(key)}: current → proposed`} />
            )}
            {before && key in before && !isLong(value) && (
              <>
                <del>
                  <Value value={before[key]} />
                </del>
                <span aria-hidden="true"> → </span>
              </>
            )}
            {!(before && typeof before[key] === 'string' && isLong(value)) && <Value value={value} />}
          </dd>
        </div>
      ))}
    </dl>
  );
}

type EntityType = PendingChange['entity_type'];

/** How the current version of what an update or delete targets is read, per kind. */
const readers: Partial<Record<EntityType, (id: string) => Promise<Fields>>> = {
  page: (id) => ok(api.GET('/api/pages/{id}', { params: { path: { id } } })),
  project: (id) => ok(api.GET('/api/projects/{id}', { params: { path: { id } } })),
  task: (id) => ok(api.GET('/api/tasks/{id}', { params: { path: { id } } })),
  ref: (id) => ok(api.GET('/api/refs/{id}', { params: { path: { id } } })),
  resource: (id) => ok(api.GET('/api/resources/{id}', { params: { path: { id } } })),
  source_doc: (id) => ok(api.GET('/api/source-docs/{id}', { params: { path: { id } } })),
};

/** An uploaded file's payload in words: its name, type and size instead of its base64 bytes. */
/** The name of what an entity is: its title, name or URL. */
export function entityName(fields: Fields | null | undefined): string {
  const name = fields?.title ?? fields?.name ?? fields?.url;
  return typeof name === 'string' ? name : '';
}

/** What a pending change does: the fields it creates with, the fields it changes (from what is there now), or what
 * it deletes. */
export function ProposalChanges({ change }: { change: PendingChange }) {
  // What is there now; a proposal whose target cannot be read is still shown, without it.
  const current = useData(() => {
    const read = readers[change.entity_type];
    if (change.action === 'create' || !change.entity_id || !read) return Promise.resolve(null);
    return read(change.entity_id).catch(() => null);
  }, [change.id]);
  const payload = (change.payload ?? {}) as Fields;
  // An upload's file is not in its payload: the card links to it (change.file).
  const fields = payload;
  if (change.action === 'delete') {
    const name = entityName(current.data ?? null);
    return (
      <p class="small">
        Deletes this {change.entity_type.replace('_', ' ')}
        {name ? `: ${name}` : ''}.
      </p>
    );
  }
  return (
    <FieldList
      fields={Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined))}
      before={change.action === 'update' ? (current.data ?? null) : null}
    />
  );
}
