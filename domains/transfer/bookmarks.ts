// Netscape bookmark files, the format every browser, Karakeep and linkding export and import: folders are <DT><H3>
// followed by a <DL> of their content, bookmarks are <DT><A HREF ADD_DATE TAGS>, a description an optional <DD>.
// The file is parsed as a browser parses HTML (jsdom: entities decoded, unclosed <DT> and <p> closed where a browser
// closes them, attribute names in any case); a bookmark's folders, outermost
// first, become its tags, except the browsers' own root folders (marked PERSONAL_TOOLBAR_FOLDER or
// UNFILED_BOOKMARKS_FOLDER), which every bookmark would otherwise carry.

export interface Bookmark {
  url: string;
  title: string;
  /** The folder names, outermost first, then the TAGS attribute's names; each once. */
  tags: string[];
  /** The folders as a path, for the import's report. */
  folder: string;
  description: string;
  added?: Date;
}

const signature = /<!DOCTYPE\s+NETSCAPE-Bookmark-file-1>/i;

/** Whether the bytes start like a bookmark file (its doctype among the first bytes). */
export function isBookmarkFile(head: string): boolean {
  return signature.test(head.slice(0, 2048));
}

/** ADD_DATE in seconds since 1970 (some tools write milliseconds or microseconds). */
function addDate(value: string | null): Date | undefined {
  if (!value || !/^\d{1,20}$/.test(value)) return undefined;
  let seconds = Number(value);
  if (seconds > 1e14) seconds /= 1e6;
  else if (seconds > 1e11) seconds /= 1e3;
  const date = new Date(seconds * 1000);
  return seconds > 0 && date.getFullYear() <= 9999 ? date : undefined;
}

interface Element {
  tagName: string;
  textContent: string | null;
  children: ArrayLike<Element>;
  parentElement: Element | null;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelectorAll(selector: string): ArrayLike<Element>;
  closest(selector: string): Element | null;
  nextElementSibling: Element | null;
}

function childNamed(element: Element, tag: string): Element | undefined {
  return Array.from(element.children).find((child) => child.tagName === tag);
}

/** Every bookmark of the file, in file order. */
export async function parseBookmarks(html: string): Promise<Bookmark[]> {
  // Loaded on first use: most starts of the hub never import a bookmark file.
  const { JSDOM } = await import('jsdom');
  const { document } = new JSDOM(html).window as { document: Element };
  const bookmarks: Bookmark[] = [];
  const root = document.querySelectorAll('dl')[0];
  if (!root) return bookmarks;

  // A <DT> belongs to the nearest <DL> around it, wherever <p> or unclosed tags put it in between.
  const walk = (list: Element, folders: string[]) => {
    for (const item of Array.from(list.querySelectorAll('dt'))) {
      if (item.parentElement?.closest('dl') !== list) continue;
      const heading = childNamed(item, 'H3');
      if (heading) {
        const inner = childNamed(item, 'DL') ?? nextList(item);
        const isRoot =
          heading.hasAttribute('personal_toolbar_folder') || heading.hasAttribute('unfiled_bookmarks_folder');
        const name = (heading.textContent ?? '').trim();
        if (inner) walk(inner, isRoot || name === '' ? folders : [...folders, name]);
        continue;
      }
      const link = childNamed(item, 'A');
      const href = link?.getAttribute('href')?.trim();
      if (!link || !href) continue;
      const listed = (link.getAttribute('tags') ?? '')
        .split(',')
        .map((tag) => tag.trim())
        .filter((tag) => tag !== '');
      const description =
        item.nextElementSibling?.tagName === 'DD' ? item.nextElementSibling : childNamed(item, 'DD');
      bookmarks.push({
        url: href,
        title: (link.textContent ?? '').replace(/\s+/g, ' ').trim(),
        tags: [...new Set([...folders, ...listed])],
        folder: folders.join('/'),
        description: (description?.textContent ?? '').trim(),
        added: addDate(link.getAttribute('add_date')),
      });
    }
  };
  walk(root, []);
  return bookmarks;
}

/** The <DL> right after a folder's <DT>, where something closed the <DT> before it. */
function nextList(item: Element): Element | undefined {
  const next = item.nextElementSibling;
  return next?.tagName === 'DL' ? next : undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface ExportedBookmark {
  url: string;
  title: string;
  tags: string[];
  notes: string;
  created: Date;
  updated: Date;
}

/**
 * A bookmark file browsers import: bookmarks without tags at the top, the rest in a folder named after their first
 * tag, every tag also in TAGS (which Firefox, Karakeep and linkding read back).
 */
export function renderBookmarks(title: string, bookmarks: readonly ExportedBookmark[]): string {
  const line = (bookmark: ExportedBookmark, indent: string) => {
    const added = Math.floor(bookmark.created.getTime() / 1000);
    const modified = Math.floor(bookmark.updated.getTime() / 1000);
    const tags = bookmark.tags.length ? ` TAGS="${escapeHtml(bookmark.tags.join(','))}"` : '';
    const notes = bookmark.notes.trim() ? `\n${indent}<DD>${escapeHtml(bookmark.notes.trim())}` : '';
    return `${indent}<DT><A HREF="${escapeHtml(bookmark.url)}" ADD_DATE="${added}" LAST_MODIFIED="${modified}"${tags}>${escapeHtml(bookmark.title || bookmark.url)}</A>${notes}`;
  };
  const folders = new Map<string, ExportedBookmark[]>();
  const loose: ExportedBookmark[] = [];
  for (const bookmark of bookmarks) {
    const folder = bookmark.tags[0];
    if (folder === undefined) loose.push(bookmark);
    else folders.set(folder, [...(folders.get(folder) ?? []), bookmark]);
  }
  const lines = [
    '<!DOCTYPE NETSCAPE-Bookmark-file-1>',
    '<!-- This is an automatically generated file. It will be read and overwritten. DO NOT EDIT! -->',
    '<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">',
    `<TITLE>${escapeHtml(title)}</TITLE>`,
    `<H1>${escapeHtml(title)}</H1>`,
    '<DL><p>',
    ...[...folders].flatMap(([folder, items]) => [
      `    <DT><H3>${escapeHtml(folder)}</H3>`,
      '    <DL><p>',
      ...items.map((bookmark) => line(bookmark, '        ')),
      '    </DL><p>',
    ]),
    ...loose.map((bookmark) => line(bookmark, '    ')),
    '</DL><p>',
    '',
  ];
  return lines.join('\n');
}
