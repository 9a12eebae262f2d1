// Markdown files with YAML front matter, the shape of an exported space and of what an import reads: the known keys
// (id, title, created, updated, tags, and type for projects and documents) map to fields; any other key a page's
// file carries stays with the page as a front matter block at the start of its body, and goes back out merged into
// the file's front matter, so nothing an editor like Obsidian wrote is lost on the way through the hub.
import { isMap, parseDocument, stringify } from 'yaml';

export interface FrontMatter {
  id?: string;
  title?: string;
  created?: string;
  updated?: string;
  tags: string[];
  type?: string;
  /** Every key besides the ones above, as written. */
  extra: Record<string, unknown>;
}

export interface MarkdownFile {
  front: FrontMatter;
  body: string;
}

const known = new Set(['id', 'title', 'created', 'updated', 'tags', 'type']);
const fence = /^---\r?\n([\s\S]*?)\r?\n?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** A problem with a file's front matter, reported as the file's skip reason. */
export class FrontMatterError extends Error {}

function text(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' || typeof value === 'number') return String(value).trim() || undefined;
  return undefined;
}

/** Tags as Obsidian writes them: a list, or one string of names split by commas or spaces; `#` dropped. */
function tagList(value: unknown): string[] {
  const raw = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/) : [];
  const tags = raw.map((tag) => String(tag).trim().replace(/^#/, '')).filter((tag) => tag.length > 0);
  return [...new Set(tags)];
}

/** Splits a file into its front matter (parsed) and body; a file without front matter is all body. */
export function parseMarkdown(source: string): MarkdownFile {
  const content = source.replace(/^\uFEFF/, '');
  const match = fence.exec(content);
  if (!match) return { front: { tags: [], extra: {} }, body: content };
  const document = parseDocument(match[1], { uniqueKeys: false });
  if (document.errors.length > 0) {
    throw new FrontMatterError(
      `the front matter is not valid YAML: ${document.errors[0].message.split('\n')[0]}`,
    );
  }
  if (document.contents !== null && !isMap(document.contents)) {
    throw new FrontMatterError('the front matter is not a map of keys to values');
  }
  const fields = (document.toJS({ maxAliasCount: 50 }) ?? {}) as Record<string, unknown>;
  const extra = Object.fromEntries(Object.entries(fields).filter(([key]) => !known.has(key)));
  return {
    front: {
      id: text(fields.id),
      title: text(fields.title),
      created: text(fields.created),
      updated: text(fields.updated),
      tags: tagList(fields.tags),
      type: text(fields.type),
      extra,
    },
    body: content.slice(match[0].length).replace(/^\r?\n/, ''),
  };
}

/** A body with the unknown keys of its file put back in front, as a front matter block of its own. */
export function bodyWithExtra(body: string, extra: Record<string, unknown>): string {
  if (Object.keys(extra).length === 0) return body;
  return `---\n${stringify(extra)}---\n\n${body}`;
}

/** A Markdown file: front matter (the given keys, in order, then any keys the body's own front matter held), body. */
export function renderMarkdown(fields: Record<string, unknown>, body: string): string {
  let rest = body;
  let merged = fields;
  const match = fence.exec(body);
  if (match) {
    try {
      const own = parseMarkdown(body);
      merged = { ...fields, ...own.front.extra };
      rest = own.body;
    } catch {
      // A body that only looks like it starts with front matter stays as it is.
    }
  }
  return `---\n${stringify(merged, { lineWidth: 0 })}---\n\n${rest}`;
}

/** When a front matter time is a real instant; otherwise none (the row's own time is used). */
export function instant(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) || date.getFullYear() < 1 || date.getFullYear() > 9999
    ? undefined
    : date;
}

// Characters that a file name on Windows, macOS or Linux cannot hold, or that Obsidian gives a meaning in a link.
const unsafeName = /[\\/:*?"<>|#^[\]\p{Cc}]/gu;
const reservedName = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;

/** A file or folder name for a title: safe on every system, at most 100 characters, never empty. */
export function safeName(title: string): string {
  let name = title
    .replace(unsafeName, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .replace(/[. ]+$/, '');
  name = [...name].slice(0, 100).join('').trim();
  if (name === '') name = 'Untitled';
  if (reservedName.test(name)) name = `${name} (page)`;
  return name;
}

/** Hands out names unique within one folder, case-insensitively (macOS and Windows folders are): "Name (2)". */
export class FolderNames {
  readonly #taken = new Set<string>();

  constructor(reserved: readonly string[] = []) {
    for (const name of reserved) this.#taken.add(name.toLowerCase());
  }

  /** A name for `title`, unique here both as `name` and as `name.md` (a page's file and its folder share it). */
  take(title: string): string {
    const base = safeName(title);
    let name = base;
    for (let n = 2; this.#taken.has(name.toLowerCase()) || this.#taken.has(`${name}.md`.toLowerCase()); n++) {
      name = `${base} (${n})`;
    }
    this.#taken.add(name.toLowerCase());
    this.#taken.add(`${name}.md`.toLowerCase());
    return name;
  }
}

export type TaskStatus = 'todo' | 'doing' | 'done' | 'cancelled';

/** Task-list markers: the Markdown ones, and the ones Obsidian's task plugins use for in progress and cancelled. */
const markers: Record<TaskStatus, string> = { todo: ' ', doing: '/', done: 'x', cancelled: '-' };

export interface TaskItem {
  title: string;
  status: TaskStatus;
  notes: string;
}

/** A Markdown task list: one item per task, its notes indented beneath it. */
export function renderTaskList(tasks: readonly TaskItem[]): string {
  return tasks
    .map((task) => {
      const notes = task.notes.trim()
        ? `\n${task.notes
            .trim()
            .split('\n')
            .map((line) => `  ${line}`)
            .join('\n')}`
        : '';
      return `- [${markers[task.status]}] ${task.title.replace(/\s+/g, ' ').trim()}${notes}`;
    })
    .join('\n');
}

/** The task items of a Markdown text (`- [ ]`, `- [x]`, `* [/]` ...), each with the indented lines under it. */
export function parseTaskList(source: string): TaskItem[] {
  const items: TaskItem[] = [];
  let current: { item: TaskItem; notes: string[] } | null = null;
  const flush = () => {
    if (current) current.item.notes = current.notes.join('\n').trim();
  };
  for (const line of source.split(/\r?\n/)) {
    const match = /^[-*+] \[(.)\] (.+)$/.exec(line);
    if (match) {
      flush();
      const mark = match[1].toLowerCase();
      const status: TaskStatus =
        mark === 'x' ? 'done' : mark === '/' ? 'doing' : mark === '-' ? 'cancelled' : 'todo';
      current = { item: { title: match[2].trim(), status, notes: '' }, notes: [] };
      items.push(current.item);
    } else if (current && /^\s{2,}\S/.test(line)) {
      current.notes.push(line.replace(/^ {2}|^\t/, ''));
    } else if (line.trim() !== '') {
      flush();
      current = null;
    }
  }
  flush();
  return items;
}
