// Knowledge: spaces; each space's page tree (drag a page before, after or into another); a page's Markdown, viewed
// and edited; projects with their tasks and linked references; the documents captured into the space. Every kind
// search finds opens here by its address: /knowledge/{space,page,doc,project,task,resource,ref}/:id.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../client.ts';
import { AddRow } from '../../components/AddRow.tsx';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { failed } from '../../state.ts';
import type { Page, PageNode } from '../../types.ts';
import { addressed, type Focus, type Opened, open, type Tab, type Target, tabs } from './address.ts';
import { DocumentList, DocumentView } from './documents.tsx';
import { RefView, ResourceView } from './items.tsx';
import { PageView } from './page.tsx';
import { Projects } from './projects.tsx';
import { type Drop, Tree } from './tree.tsx';

export default function Knowledge() {
  const { path, query, route } = useLocation();
  const at = addressed(path);
  const spaces = useData(() => ok(api.GET('/api/spaces', { params: { query: { limit: 100 } } })));
  const target = useData<Target>(
    () => (at.kind && at.id ? open(at.kind, at.id) : Promise.resolve({})),
    [at.kind, at.id],
  );
  const chosenSpace = useSignal<string | null>(null);
  const page = useSignal<Page | null>(null);
  const pageTag = useSignal<string | null>(null);
  const tab = useSignal<Tab>('pages');
  const opened = useSignal<Opened | null>(null);
  const focus = useSignal<Focus>({});
  useEffect(() => {
    const found = target.data;
    if (!found) return;
    // A space made since the list was read (by an agent, in another tab) is listed before it is shown.
    if (found.spaceId && spaces.data && !spaces.data.items.some((s) => s.id === found.spaceId))
      spaces.reload();
    page.value = found.page ?? null;
    pageTag.value = found.etag ?? null;
    opened.value = found.opened ?? null;
    focus.value = found.focus ?? {};
    if (found.tab) tab.value = found.tab;
    if (found.spaceId) chosenSpace.value = found.spaceId;
  }, [target.data]);
  const spaceList = spaces.data?.items ?? [];
  const spaceId = chosenSpace.value ?? spaceList[0]?.id ?? null;
  const tree = useData(
    () =>
      spaceId === null
        ? Promise.resolve(null)
        : ok(
            api.GET('/api/spaces/{id}/pages', {
              params: { path: { id: spaceId }, query: { tree: true, limit: 100 } },
            }),
          ),
    [spaceId],
  );
  const nodes = tree.data?.items ?? [];
  const pageIds = pagesByTitle(nodes);
  // A title the space has no page of leads to this screen with the New page field holding it, one Enter from made.
  const links = (title: string) => {
    // Until the space's pages are in, no title is known to be missing: the text alone, not a create link.
    if (!tree.data) return null;
    const id = pageIds.get(title.toLowerCase());
    if (id) return { href: `/knowledge/page/${id}` };
    return spaceId
      ? { href: `/knowledge/space/${spaceId}?new=${encodeURIComponent(title)}`, missing: true }
      : null;
  };

  async function createSpace(name: string) {
    const space = await ok(api.POST('/api/spaces', { body: { name } })).catch(failed);
    if (!space) return false;
    await spaces.reload();
    route(`/knowledge/space/${space.id}`);
    return true;
  }
  async function createPage(title: string) {
    if (!spaceId) return false;
    const created = await ok(api.POST('/api/pages', { body: { space_id: spaceId, title } })).catch(failed);
    if (!created || !('id' in created)) return false;
    await tree.reload();
    route(`/knowledge/page/${created.id}`);
    return true;
  }
  async function move(id: string, target: PageNode, where: Drop) {
    const body =
      where === 'into'
        ? { parent_id: target.id }
        : { parent_id: target.parent_id, position: target.position + (where === 'after' ? 1 : 0) };
    await ok(api.PATCH('/api/pages/{id}', { params: { path: { id } }, body })).catch(failed);
    await tree.reload();
  }

  const space = spaceList.find((s) => s.id === spaceId);
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
            {spaceList.map((s) => (
              <li key={s.id}>
                <a href={`/knowledge/space/${s.id}`} aria-current={s.id === spaceId ? 'true' : undefined}>
                  <Icon name="folder" size={15} />
                  {s.name}
                </a>
              </li>
            ))}
          </ul>
          <AddRow label="New space" class="stack" button={null} onAdd={createSpace} />
          {tab.value === 'pages' && space && (
            <>
              <h2 class="section">Pages</h2>
              <Tree nodes={nodes} selected={page.value?.id} onMove={move} />
              {nodes.length === 0 && <p class="muted">No pages yet.</p>}
              <AddRow
                key={query.new ?? ''}
                label="New page"
                class="stack"
                button={null}
                initial={query.new}
                onAdd={createPage}
              />
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
              etag={pageTag.value}
              links={links}
              onSaved={(saved, etag) => {
                page.value = saved;
                pageTag.value = etag;
                tree.reload();
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

/** The space's pages by title (any case; the first in tree order wins), for its `[[Page title]]` links. */
function pagesByTitle(nodes: PageNode[], found = new Map<string, string>()): Map<string, string> {
  for (const node of nodes) {
    if (!found.has(node.title.toLowerCase())) found.set(node.title.toLowerCase(), node.id);
    pagesByTitle(node.children ?? [], found);
  }
  return found;
}
