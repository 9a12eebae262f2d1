// Knowledge: spaces; each space's page tree (drag a page before, after or into another); a page's Markdown, viewed
// and edited; projects with their tasks and linked references; the documents captured into the space. Every kind
// search finds opens here by its address: /knowledge/{space,page,doc,project,task,resource,ref}/:id.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../client.ts';
import { Confirm } from '../../components/Dialog.tsx';
import { Icon } from '../../components/Icon.tsx';
import { ago, markdown } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Page, PageNode, Project, Ref, Resource, SourceDoc, Space, Task } from '../../types.ts';
import { DocumentList, DocumentView, RefView, ResourceView } from './documents.tsx';

const kinds = ['space', 'page', 'doc', 'project', 'task', 'resource', 'ref'] as const;
type Kind = (typeof kinds)[number];
type Tab = 'pages' | 'projects' | 'documents';

function addressed(current: string): { kind?: Kind; id?: string } {
  const [, , kind, id] = current.split('/');
  return (kinds as readonly string[]).includes(kind) && id ? { kind: kind as Kind, id } : {};
}

const tabs: [Tab, string][] = [
  ['pages', 'Pages'],
  ['projects', 'Projects'],
  ['documents', 'Documents'],
];

/** What the main panel shows besides a tab's own content: something opened by its address. */
type Opened =
  | { kind: 'doc'; doc: SourceDoc }
  | { kind: 'resource'; resource: Resource }
  | { kind: 'ref'; reference: Ref };

/** What an address names: the space it lives in, the tab it belongs to, and what to open or focus there. */
interface Target {
  spaceId?: string;
  tab?: Tab;
  page?: Page;
  opened?: Opened;
  focus?: Focus;
}

async function open(kind: Kind, id: string): Promise<Target> {
  const params = { params: { path: { id } } };
  switch (kind) {
    case 'space':
      return { spaceId: id };
    case 'page': {
      const page = await ok(api.GET('/api/pages/{id}', params));
      return { spaceId: page.space_id, tab: 'pages', page };
    }
    case 'doc': {
      const doc = await ok(api.GET('/api/source-docs/{id}', params));
      return { spaceId: doc.space_id, tab: 'documents', opened: { kind, doc } };
    }
    case 'project': {
      const project = await ok(api.GET('/api/projects/{id}', params));
      return { spaceId: project.space_id, tab: 'projects', focus: { project: project.id } };
    }
    case 'task': {
      const task = await ok(api.GET('/api/tasks/{id}', params));
      return {
        spaceId: task.space_id,
        tab: 'projects',
        focus: { project: task.project_id, task: task.id },
      };
    }
    case 'resource': {
      const resource = await ok(api.GET('/api/resources/{id}', params));
      return { spaceId: resource.space_id, opened: { kind, resource } };
    }
    case 'ref': {
      const reference = await ok(api.GET('/api/refs/{id}', params));
      return { spaceId: reference.space_id, opened: { kind, reference } };
    }
  }
}

type Drop = 'before' | 'after' | 'into';

function flatten(nodes: PageNode[]): PageNode[] {
  return nodes.flatMap((node) => [node, ...flatten((node.children ?? []) as PageNode[])]);
}

function Tree({
  nodes,
  selected,
  onMove,
}: {
  nodes: PageNode[];
  selected?: string;
  onMove: (id: string, target: PageNode, where: Drop) => void;
}) {
  const over = useSignal<{ id: string; where: Drop } | null>(null);
  const where = (event: DragEvent): Drop => {
    const box = (event.currentTarget as HTMLElement).getBoundingClientRect();
    const at = (event.clientY - box.top) / box.height;
    return at < 0.3 ? 'before' : at > 0.7 ? 'after' : 'into';
  };
  return (
    <ul class="tree" aria-label="Pages">
      {flatten(nodes).map((node) => (
        <li
          key={node.id}
          class={[
            node.id === selected ? 'selected' : '',
            over.value?.id === node.id ? `drop-${over.value?.where}` : '',
          ]
            .join(' ')
            .trim()}
          data-page-id={node.id}
          style={{ paddingLeft: `${8 + node.depth * 16}px` }}
          draggable
          onDragStart={(event) => {
            event.dataTransfer?.setData('text/x-page', node.id);
            if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
          }}
          onDragOver={(event) => {
            event.preventDefault();
            over.value = { id: node.id, where: where(event) };
          }}
          onDragLeave={() => {
            if (over.value?.id === node.id) over.value = null;
          }}
          onDrop={(event) => {
            event.preventDefault();
            const id = event.dataTransfer?.getData('text/x-page');
            const place = where(event);
            over.value = null;
            if (id && id !== node.id) onMove(id, node, place);
          }}
        >
          <a href={`/knowledge/page/${node.id}`}>
            <Icon name="file" size={15} />
            {node.title}
          </a>
        </li>
      ))}
    </ul>
  );
}

function PageView({ page, onSaved }: { page: Page; onSaved: (page: Page) => void }) {
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

const taskStates: Task['status'][] = ['todo', 'doing', 'done', 'cancelled'];

interface Focus {
  project?: string;
  task?: string;
}

function Projects({ space, focus }: { space: Space; focus: Focus }) {
  const projects = useSignal<Project[]>([]);
  const selected = useSignal<string | null>(focus.project ?? null);
  const links = useSignal<{ tasks: Task[]; refs: Ref[] } | null>(null);
  const name = useSignal('');
  const taskTitle = useSignal('');
  async function load() {
    const page = await ok(
      api.GET('/api/projects', { params: { query: { space_id: space.id, limit: 100 } } }),
    );
    projects.value = page.items;
    if (!selected.value && page.items[0]) selected.value = page.items[0].id;
  }
  async function loadLinks() {
    if (!selected.value) {
      links.value = null;
      return;
    }
    links.value = await ok(api.GET('/api/projects/{id}/links', { params: { path: { id: selected.value } } }));
  }
  useEffect(() => {
    selected.value = focus.project ?? null;
    load().catch(failed);
  }, [space.id, focus.project]);
  useEffect(() => {
    // A task opened by its address is brought into view once its project's tasks are shown.
    if (focus.task) document.getElementById(`task-${focus.task}`)?.scrollIntoView({ block: 'center' });
  }, [focus.task, links.value]);
  useEffect(() => {
    loadLinks().catch(failed);
  }, [selected.value]);
  async function create(event: Event) {
    event.preventDefault();
    const project = await ok(
      api.POST('/api/projects', { body: { name: name.value, space_id: space.id } }),
    ).catch(failed);
    if (!project || !('id' in project)) return;
    name.value = '';
    selected.value = project.id;
    await load();
  }
  async function addTask(event: Event) {
    event.preventDefault();
    if (!selected.value) return;
    await ok(api.POST('/api/tasks', { body: { project_id: selected.value, title: taskTitle.value } })).catch(
      failed,
    );
    taskTitle.value = '';
    await loadLinks();
  }
  async function setStatus(task: Task, status: Task['status']) {
    await ok(api.PATCH('/api/tasks/{id}', { params: { path: { id: task.id } }, body: { status } })).catch(
      failed,
    );
    await loadLinks();
  }
  const project = projects.value.find((p) => p.id === selected.value);
  return (
    <div class="projects">
      <div class="panel">
        <div class="panel-head">
          <h2>Projects</h2>
        </div>
        <ul class="list">
          {projects.value.map((p) => (
            <li key={p.id}>
              <button
                type="button"
                aria-pressed={p.id === selected.value}
                onClick={() => (selected.value = p.id)}
              >
                {p.name}
                <span
                  class={`badge ${p.status === 'active' ? 'success' : p.status === 'done' ? 'info' : ''}`}
                >
                  {p.status}
                </span>
              </button>
            </li>
          ))}
        </ul>
        <form class="row" onSubmit={create}>
          <label>
            New project
            <input value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} required />
          </label>
          <button type="submit">
            <Icon name="plus" size={15} /> Add
          </button>
        </form>
      </div>
      {project && (
        <div class="panel">
          <div class="panel-head">
            <h2>{project.name}</h2>
            <span class="muted">research: {project.research_status}</span>
          </div>
          <h3>Tasks</h3>
          <table>
            <tbody>
              {links.value?.tasks.map((task) => (
                <tr
                  key={task.id}
                  id={`task-${task.id}`}
                  class={task.id === focus.task ? 'focused' : ''}
                  aria-current={task.id === focus.task ? 'true' : undefined}
                >
                  <td class={task.status === 'done' ? 'done' : ''}>{task.title}</td>
                  <td>{task.due_at ? `due ${ago(task.due_at)}` : ''}</td>
                  <td>
                    <select
                      aria-label={`Status of ${task.title}`}
                      value={task.status}
                      onChange={(e) => setStatus(task, e.currentTarget.value as Task['status'])}
                    >
                      {taskStates.map((s) => (
                        <option key={s}>{s}</option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
              {links.value?.tasks.length === 0 && (
                <tr>
                  <td class="muted">No tasks yet.</td>
                </tr>
              )}
            </tbody>
          </table>
          <form class="row" onSubmit={addTask}>
            <label>
              New task
              <input
                value={taskTitle.value}
                onInput={(e) => (taskTitle.value = e.currentTarget.value)}
                required
              />
            </label>
            <button type="submit">
              <Icon name="plus" size={15} /> Add
            </button>
          </form>
          <h3 class="section">Linked references</h3>
          <ul class="list refs">
            {links.value?.refs.map((ref) => (
              <li key={ref.id}>
                <Icon name="link" size={14} />
                {ref.url ? (
                  <a href={ref.url} rel="noreferrer noopener" target="_blank">
                    {ref.title || ref.url}
                  </a>
                ) : (
                  ref.title
                )}
                <span class="muted">{ref.source}</span>
              </li>
            ))}
            {links.value?.refs.length === 0 && <li class="muted">No linked references.</li>}
          </ul>
        </div>
      )}
    </div>
  );
}

export default function Knowledge() {
  const spaces = useSignal<Space[]>([]);
  const spaceId = useSignal<string | null>(null);
  const tree = useSignal<PageNode[]>([]);
  const page = useSignal<Page | null>(null);
  const tab = useSignal<Tab>('pages');
  const opened = useSignal<Opened | null>(null);
  const focus = useSignal<Focus>({});
  const newSpace = useSignal('');
  const newPage = useSignal('');
  const { path, route } = useLocation();
  const at = addressed(path);

  async function loadSpaces() {
    const list = await ok(api.GET('/api/spaces', { params: { query: { limit: 100 } } }));
    spaces.value = list.items;
  }
  async function loadTree(id: string) {
    const list = await ok(
      api.GET('/api/spaces/{id}/pages', { params: { path: { id }, query: { tree: true, limit: 100 } } }),
    );
    tree.value = list.items;
  }
  useEffect(() => {
    loadSpaces().catch(failed);
  }, []);
  useEffect(() => {
    (async () => {
      const found: Target = at.kind && at.id ? await open(at.kind, at.id) : {};
      // A space made since the list was read (by an agent, in another tab) is listed before it is shown.
      if (found.spaceId && !spaces.value.some((s) => s.id === found.spaceId)) await loadSpaces();
      page.value = found.page ?? null;
      opened.value = found.opened ?? null;
      focus.value = found.focus ?? {};
      if (found.tab) tab.value = found.tab;
      spaceId.value = found.spaceId ?? spaceId.value ?? spaces.value[0]?.id ?? null;
    })().catch(failed);
  }, [at.kind, at.id]);
  useEffect(() => {
    if (!spaceId.value && spaces.value[0]) spaceId.value = spaces.value[0].id;
  }, [spaces.value]);
  useEffect(() => {
    if (spaceId.value) loadTree(spaceId.value).catch(failed);
  }, [spaceId.value]);

  async function createSpace(event: Event) {
    event.preventDefault();
    const space = await ok(api.POST('/api/spaces', { body: { name: newSpace.value } })).catch(failed);
    if (!space) return;
    newSpace.value = '';
    await loadSpaces();
    route(`/knowledge/space/${space.id}`);
  }
  async function createPage(event: Event) {
    event.preventDefault();
    if (!spaceId.value) return;
    const created = await ok(
      api.POST('/api/pages', { body: { space_id: spaceId.value, title: newPage.value } }),
    ).catch(failed);
    if (!created || !('id' in created)) return;
    newPage.value = '';
    await loadTree(spaceId.value);
    route(`/knowledge/page/${created.id}`);
  }
  async function move(id: string, target: PageNode, where: Drop) {
    const body =
      where === 'into'
        ? { parent_id: target.id }
        : { parent_id: target.parent_id, position: target.position + (where === 'after' ? 1 : 0) };
    await ok(api.PATCH('/api/pages/{id}', { params: { path: { id } }, body })).catch(failed);
    if (spaceId.value) await loadTree(spaceId.value);
  }

  const space = spaces.value.find((s) => s.id === spaceId.value);
  const doc = opened.value?.kind === 'doc' ? opened.value.doc : undefined;
  const item = opened.value?.kind === 'resource' || opened.value?.kind === 'ref' ? opened.value : undefined;
  return (
    <div class="knowledge">
      <div class="page-head">
        <h1>Knowledge</h1>
        <div class="tabs" role="tablist">
          {tabs.map(([name, label]) => (
            <button
              key={name}
              type="button"
              role="tab"
              aria-selected={tab.value === name}
              onClick={() => {
                tab.value = name;
                opened.value = null;
              }}
            >
              {label}
            </button>
          ))}
        </div>
      </div>
      <div class="knowledge-grid">
        <aside class="panel spaces">
          <h2>Spaces</h2>
          <ul class="list">
            {spaces.value.map((s) => (
              <li key={s.id}>
                <a
                  href={`/knowledge/space/${s.id}`}
                  aria-current={s.id === spaceId.value ? 'true' : undefined}
                >
                  <Icon name="folder" size={15} />
                  {s.name}
                </a>
              </li>
            ))}
          </ul>
          <form class="stack" onSubmit={createSpace}>
            <label>
              New space
              <input
                value={newSpace.value}
                onInput={(e) => (newSpace.value = e.currentTarget.value)}
                required
              />
            </label>
          </form>
          {tab.value === 'pages' && space && (
            <>
              <h2 class="section">Pages</h2>
              <Tree nodes={tree.value} selected={page.value?.id} onMove={move} />
              {tree.value.length === 0 && <p class="muted">No pages yet.</p>}
              <form class="stack" onSubmit={createPage}>
                <label>
                  New page
                  <input
                    value={newPage.value}
                    onInput={(e) => (newPage.value = e.currentTarget.value)}
                    required
                  />
                </label>
              </form>
            </>
          )}
          {tab.value === 'documents' && space && (
            <>
              <h2 class="section">Documents</h2>
              <DocumentList spaceId={space.id} selected={doc?.id} />
            </>
          )}
        </aside>
        <section class="knowledge-main">
          {!space && <div class="panel muted empty">Create a space to start writing.</div>}
          {space && item?.kind === 'resource' && <ResourceView resource={item.resource} />}
          {space && item?.kind === 'ref' && <RefView reference={item.reference} />}
          {space && !item && tab.value === 'projects' && <Projects space={space} focus={focus.value} />}
          {space && !item && tab.value === 'documents' && doc && <DocumentView doc={doc} />}
          {space && !item && tab.value === 'documents' && !doc && (
            <div class="panel">
              <h2>{space.name}</h2>
              <p class="muted">
                Captured links and uploaded files of this space. Pick one on the left to read it.
              </p>
            </div>
          )}
          {space && !item && tab.value === 'pages' && page.value && (
            <PageView
              page={page.value}
              onSaved={(saved) => {
                page.value = saved;
                if (spaceId.value) loadTree(spaceId.value).catch(failed);
              }}
            />
          )}
          {space && !item && tab.value === 'pages' && !page.value && (
            <div class="panel">
              <h2>{space.name}</h2>
              <p class="muted">{space.description || 'Pick a page on the left, or create one.'}</p>
              <p class="muted">
                Drag pages to reorder them: drop on the top or bottom edge of a page to place it before or
                after, in the middle to nest it.
              </p>
            </div>
          )}
        </section>
      </div>
    </div>
  );
}
