// The Knowledge screen's addresses: /knowledge/{space,page,doc,project,task,resource,ref}/:id, and what each one
// opens (the space it lives in, the tab it belongs to, and the item to show or bring into view there).
import { api, ok, tagged } from '../../client.ts';
import type { Page, Ref, Resource, SourceDoc } from '../../types.ts';

/** A project, or a task in its project, brought into view on the Projects tab. */
export interface Focus {
  project?: string;
  task?: string;
}

const kinds = ['space', 'page', 'doc', 'project', 'task', 'resource', 'ref'] as const;
type Kind = (typeof kinds)[number];
export type Tab = 'pages' | 'projects' | 'documents';

export function addressed(current: string): { kind?: Kind; id?: string } {
  const [, , kind, id] = current.split('/');
  return (kinds as readonly string[]).includes(kind) && id ? { kind: kind as Kind, id } : {};
}

export const tabs: [Tab, string][] = [
  ['pages', 'Pages'],
  ['projects', 'Projects'],
  ['documents', 'Documents'],
];

/** What the main panel shows besides a tab's own content: something opened by its address. */
export type Opened =
  | { kind: 'doc'; doc: SourceDoc }
  | { kind: 'resource'; resource: Resource }
  | { kind: 'ref'; reference: Ref };

/** What an address names: the space it lives in, the tab it belongs to, and what to open or focus there. */
export interface Target {
  spaceId?: string;
  tab?: Tab;
  page?: Page;
  /** The page's ETag, sent back with an edit. */
  etag?: string | null;
  opened?: Opened;
  focus?: Focus;
}

export async function open(kind: Kind, id: string): Promise<Target> {
  const params = { params: { path: { id } } };
  switch (kind) {
    case 'space':
      return { spaceId: id };
    case 'page': {
      const { data: page, etag } = await tagged(api.GET('/api/pages/{id}', params));
      return { spaceId: page.space_id, tab: 'pages', page, etag };
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
