// One page: its Markdown rendered, edited side by side with a live preview, deleted after a question.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../client.ts';
import { Confirm } from '../../components/Dialog.tsx';
import { Icon } from '../../components/Icon.tsx';
import { ago, markdown } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Page } from '../../types.ts';

export function PageView({ page, onSaved }: { page: Page; onSaved: (page: Page) => void }) {
  const { route } = useLocation();
  const editing = useSignal(false);
  const deleting = useSignal(false);
  const title = useSignal(page.title);
  const body = useSignal(page.body);
  useEffect(() => {
    editing.value = false;
    title.value = page.title;
    body.value = page.body;
  }, [page.id]);
  async function save() {
    try {
      const saved = await ok(
        api.PATCH('/api/pages/{id}', {
          params: { path: { id: page.id } },
          body: { title: title.value, body: body.value },
        }),
      );
      editing.value = false;
      if ('id' in saved) onSaved(saved);
      toast('Page saved', 'success');
    } catch (error) {
      failed(error);
    }
  }
  async function remove(yes: boolean) {
    deleting.value = false;
    if (!yes) return;
    await ok(api.DELETE('/api/pages/{id}', { params: { path: { id: page.id } } })).then(() => {
      route(`/knowledge/space/${page.space_id}`);
    }, failed);
  }
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
            <button type="button" class="primary" onClick={save}>
              Save
            </button>
            <button type="button" class="ghost" onClick={() => (editing.value = false)}>
              Cancel
            </button>
          </>
        ) : (
          <>
            <button type="button" onClick={() => (editing.value = true)}>
              <Icon name="edit" size={15} /> Edit
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
      {editing.value ? (
        <div class="editor">
          <textarea
            aria-label="Markdown"
            value={body.value}
            onInput={(e) => (body.value = e.currentTarget.value)}
          />
          <div class="markdown preview" dangerouslySetInnerHTML={{ __html: markdown(body.value) }} />
        </div>
      ) : page.body.trim() ? (
        <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown(page.body) }} />
      ) : (
        <p class="muted">This page is empty. Edit it to write Markdown.</p>
      )}
      {deleting.value && (
        <Confirm question={`Delete "${page.title}" and its subpages?`} action="Delete" onAnswer={remove} />
      )}
    </article>
  );
}
