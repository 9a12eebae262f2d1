// A space as a folder of Markdown that Obsidian opens as a vault: each page a file (front matter id, title, created,
// updated, tags; the body as written, [[wiki links]] included), a page's children in a folder of the same name
// beside it; projects with their tasks as task lists under Projects/, captured documents under Documents/ with
// their source URL, references in bookmarks.html. Names are safe on every system and unique per folder.
import type * as Yazl from 'yazl';
import { lazyRequire } from '../../lib/lazy.ts';
import { renderBookmarks } from './bookmarks.ts';
import { FolderNames, renderMarkdown, renderTaskList } from './markdown.ts';
import type { PageRecord, SpaceContent } from './store.ts';

// Loaded at the first export, not at start.
const yazl = lazyRequire<typeof Yazl>('yazl');

export const projectsFolder = 'Projects';
export const documentsFolder = 'Documents';
export const bookmarksFile = 'bookmarks.html';

function documentTags(tags: unknown): string[] {
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
}

/** The files of a space's export, path and text, in tree order (an import keeps sibling order from it). */
export function spaceFiles(content: SpaceContent): { path: string; text: string; mtime: Date }[] {
  const files: { path: string; text: string; mtime: Date }[] = [];
  const children = new Map<string | null, PageRecord[]>();
  for (const page of content.pages) {
    children.set(page.parent_id, [...(children.get(page.parent_id) ?? []), page]);
  }
  const writePages = (parentId: string | null, dir: string, names: FolderNames) => {
    for (const page of children.get(parentId) ?? []) {
      const name = names.take(page.title);
      const front = {
        id: page.id,
        title: page.title,
        created: page.created_at.toISOString(),
        updated: page.updated_at.toISOString(),
        tags: page.tags,
      };
      files.push({
        path: `${dir}${name}.md`,
        text: renderMarkdown(front, page.body),
        mtime: page.updated_at,
      });
      if (children.has(page.id)) writePages(page.id, `${dir}${name}/`, new FolderNames());
    }
  };
  writePages(null, '', new FolderNames([projectsFolder, documentsFolder, bookmarksFile]));

  const projectNames = new FolderNames();
  for (const project of content.projects) {
    const front = {
      id: project.id,
      title: project.name,
      type: 'project',
      status: project.status,
      created: project.created_at.toISOString(),
      updated: project.updated_at.toISOString(),
      tags: [],
    };
    const sections = [
      project.research_notes.trim(),
      project.tasks.length ? `## Tasks\n\n${renderTaskList(project.tasks)}` : '',
    ];
    files.push({
      path: `${projectsFolder}/${projectNames.take(project.name)}.md`,
      text: renderMarkdown(front, `${sections.filter(Boolean).join('\n\n')}\n`),
      mtime: project.updated_at,
    });
  }

  const documentNames = new FolderNames();
  for (const document of content.documents) {
    const title = document.title || document.url || 'Untitled document';
    const front = {
      id: document.id,
      title,
      type: 'document',
      source: document.url,
      captured: document.captured_at.toISOString(),
      created: document.created_at.toISOString(),
      updated: document.updated_at.toISOString(),
      tags: documentTags(document.tags),
    };
    files.push({
      path: `${documentsFolder}/${documentNames.take(title)}.md`,
      text: renderMarkdown(front, document.content),
      mtime: document.updated_at,
    });
  }

  const bookmarks = content.refs.flatMap((ref) =>
    ref.url
      ? [
          {
            url: ref.url,
            title: ref.title,
            tags: ref.tags,
            notes: ref.notes,
            created: ref.created_at,
            updated: ref.updated_at,
          },
        ]
      : [],
  );
  if (bookmarks.length > 0) {
    files.push({
      path: bookmarksFile,
      text: renderBookmarks(content.space.name, bookmarks),
      mtime: new Date(),
    });
  }
  return files;
}

/** The export as a zip stream: entries are compressed and sent as the client reads, never built whole in memory. */
export function spaceZip(content: SpaceContent): NodeJS.ReadableStream {
  const zip = new (yazl().ZipFile)();
  for (const file of spaceFiles(content)) {
    zip.addBuffer(Buffer.from(file.text), file.path, { mtime: file.mtime, mode: 0o100644 });
  }
  zip.end();
  return zip.outputStream;
}
