// One page: its Markdown rendered (`[[Page title]]` a link to that page), edited side by side with a live preview,
// the pages linking to it, its history, deleted after a question.
// An edit is saved against the version it started from (If-Match): when the page changed meanwhile, the owner sees
// the newer text beside their own, with the difference, and chooses; their text is never thrown away unasked.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import type { paths } from '../../api.d.ts';
import { api, ok, tagged } from '../../client.ts';
import { Confirm } from '../../components/Dialog.tsx';
import { Diff } from '../../components/Diff.tsx';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { ago, markdown, type WikiLinks } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Page } from '../../types.ts';
import { PageHistory, pageText } from './history.tsx';

/** The 412 answer to an edit made against an older version: the page as it is now. */
type Conflict = paths['/api/pages/{id}']['patch']['responses'][412]['content']['application/json'];

/** The newer version an edit met, with its ETag. */
interface Newer {
  page: Page;
  etag: string | null;
}

export function PageView({
  page,
  etag,
  links,
  onSaved,
}: {
  page: Page;
  /** The ETag `page` was read with. */
  etag: string | null;
  /** Where a `[[Page title]]` of this space leads. */
  links: WikiLinks;
  onSaved: (page: Page, etag: string | null) => void;
}) {
  const { route } = useLocation();
  const editing = useSignal(false);
  const deleting = useSignal(false);
  const showHistory = useSignal(false);
  const title = useSignal(page.title);
  const body = useSignal(page.body);
  // What the edit was made against: the text and its ETag (sent as If-Match).
  const base = useSignal<Newer>({ page, etag });
  const conflict = useSignal<Newer | null>(null);
  const backlinks = useData(
    () => ok(api.GET('/api/pages/{id}/backlinks', { params: { path: { id: page.id } } })),
    [page.id, page.updated_at],
  );
  useEffect(() => {
    editing.value = false;
    showHistory.value = false;
    conflict.value = null;
    title.value = page.title;
    body.value = page.body;
  }, [page.id]);

  function edit() {
    title.value = page.title;
    body.value = page.body;
    base.value = { page, etag };
    conflict.value = null;
    editing.value = true;
  }

  async function save(moved = false) {
    const answer = await api.PATCH('/api/pages/{id}', {
      params: {
        path: { id: page.id },
        header: base.value.etag ? { 'if-match': base.value.etag } : undefined,
      },
      body: { title: title.value, body: body.value },
    });
    const { response } = answer;
    const current = response.status === 412 ? (answer.error as Conflict).current : null;
    if (current) {
      const newer = { page: current, etag: response.headers.get('etag') };
      // Only its place in the tree changed (a drag): the text the edit started from is still the page's.
      if (!moved && pageText(newer.page) === pageText(base.value.page)) {
        base.value = newer;
        return save(true);
      }
      conflict.value = newer;
      return;
    }
    try {
      const saved = await ok(Promise.resolve(answer));
      editing.value = false;
      if ('id' in saved) onSaved(saved, response.headers.get('etag'));
      toast('Page saved', 'success');
    } catch (error) {
      failed(error);
    }
  }

  /** Goes on editing the owner's own text, now against the newer version: saving replaces it. */
  function keepMine() {
    if (!conflict.value) return;
    base.value = conflict.value;
    onSaved(conflict.value.page, conflict.value.etag);
    conflict.value = null;
  }

  /** Edits the newer text instead (the owner's own is dropped, by their choice). */
  function takeTheirs() {
    if (!conflict.value) return;
    const newer = conflict.value;
    base.value = newer;
    title.value = newer.page.title;
    body.value = newer.page.body;
    onSaved(newer.page, newer.etag);
    conflict.value = null;
  }

  async function copyMine() {
    try {
      // The clipboard exists only in a secure context (https or localhost).
      await navigator.clipboard.writeText(body.value);
      toast('Your text is copied', 'success');
    } catch {
      failed(new Error('The browser refused the clipboard: select your text and copy it by hand'));
    }
  }

  /** Reads the page again (after a restore), with its new ETag. */
  async function reload() {
    const fresh = await tagged(api.GET('/api/pages/{id}', { params: { path: { id: page.id } } })).catch(
      failed,
    );
    if (fresh) onSaved(fresh.data, fresh.etag);
  }

  async function remove(yes: boolean) {
    deleting.value = false;
    if (!yes) return;
    await ok(api.DELETE('/api/pages/{id}', { params: { path: { id: page.id } } })).then(() => {
      toast('Moved to the trash', 'success');
      route(`/knowledge/space/${page.space_id}`);
    }, failed);
  }
  const newer = conflict.value;
  return (
    <article class="panel page-view">
      <div class="panel-head">
        {editing.value ? (
          <input
            aria-label="Title"
            value={title.value}
            onInput={(e) => (title.value = e.currentTarget.value)}
          />
        ) : (
          <h2 class="page-title">{page.title}</h2>
        )}
        <span class="muted">edited {ago(page.updated_at)}</span>
        {editing.value ? (
          <>
            <button type="button" class="primary" disabled={newer !== null} onClick={() => save()}>
              Save
            </button>
            <button
              type="button"
              class="ghost"
              onClick={() => {
                editing.value = false;
                conflict.value = null;
              }}
            >
              Cancel
            </button>
          </>
        ) : (
          <>
            <button type="button" onClick={edit}>
              <Icon name="edit" size={15} /> Edit
            </button>
            <button
              type="button"
              class="ghost"
              aria-expanded={showHistory.value}
              onClick={() => (showHistory.value = !showHistory.value)}
            >
              <Icon name="refresh" size={15} /> History
            </button>
            <button
              type="button"
              class="ghost danger"
              aria-label="Delete page"
              onClick={() => (deleting.value = true)}
            >
              <Icon name="trash" size={15} />
            </button>
          </>
        )}
      </div>
      {editing.value && newer && (
        <section class="conflict" aria-label="Edit conflict">
          <h3>This page changed while you were editing</h3>
          <p class="muted">
            A newer version was saved {ago(newer.page.updated_at)}. Your text is kept: choose what to do with
            it.
          </p>
          <div class="conflict-sides">
            <section aria-label="Theirs">
              <h4>Theirs (saved)</h4>
              <p class="page-title">{newer.page.title}</p>
              <pre>{newer.page.body}</pre>
            </section>
            <section aria-label="Yours">
              <h4>Yours (not saved)</h4>
              <p class="page-title">{title.value}</p>
              <pre>{body.value}</pre>
            </section>
          </div>
          <Diff
            before={pageText(newer.page)}
            after={pageText({ title: title.value, body: body.value })}
            label="Theirs → yours"
          />
          <div class="row">
            <button type="button" class="primary" onClick={keepMine}>
              Keep editing mine
            </button>
            <button type="button" onClick={takeTheirs}>
              Take theirs, drop mine
            </button>
            <button type="button" class="ghost" onClick={copyMine}>
              Copy mine
            </button>
          </div>
        </section>
      )}
      {editing.value && !newer ? (
        <div class="editor">
          <textarea
            aria-label="Markdown"
            value={body.value}
            onInput={(e) => (body.value = e.currentTarget.value)}
          />
          <div class="markdown preview" dangerouslySetInnerHTML={{ __html: markdown(body.value, links) }} />
        </div>
      ) : editing.value ? null : page.body.trim() ? (
        <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown(page.body, links) }} />
      ) : (
        <p class="muted">This page is empty. Edit it to write Markdown.</p>
      )}
      {!editing.value && (backlinks.data?.items.length ?? 0) > 0 && (
        <nav class="backlinks" aria-label="Linked from">
          <h3>Linked from</h3>
          <ul>
            {backlinks.data?.items.map((linking) => (
              <li key={linking.id}>
                <a href={`/knowledge/page/${linking.id}`}>{linking.title}</a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {showHistory.value && !editing.value && <PageHistory page={page} onRestored={reload} />}
      {deleting.value && (
        <Confirm question={`Delete "${page.title}" and its subpages?`} action="Delete" onAnswer={remove} />
      )}
    </article>
  );
}
