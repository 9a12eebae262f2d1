// Importing into a space: a zip of Markdown files (folders become the page tree, front matter kept, bodies as
// written so [[wiki links]] stay), or a Netscape bookmark file (folders become tags, ADD_DATE the created time,
// optionally each one captured). Everything happens in one transaction; a dry run is the same import rolled back,
// so the preview's counts are exactly what the real import does. Importing a file again creates nothing twice:
// a page is matched by its front matter id (when that page is in this space), else by its title among its
// siblings; a reference by its URL.
import { createHash } from 'node:crypto';
import type { Config } from '../../config/index.ts';
import { hubError } from '../../lib/errors.ts';
import { isWebUrl } from '../../lib/input.ts';
import { readZip, ZipRefusedError, type ZipSource } from '../../lib/zip.ts';
import type { Db, Sql } from '../../plugins/db.ts';
import { captureIn } from '../capture/accept.ts';
import { lockPageTree } from '../pages/tree-lock.ts';
import { type Bookmark, isBookmarkFile, parseBookmarks } from './bookmarks.ts';
import { bodyWithExtra, FrontMatterError, instant, type MarkdownFile, parseMarkdown } from './markdown.ts';
import {
  type ExistingPage,
  insertImportedPage,
  insertImportedRef,
  refByUrl,
  spacePages,
  updateImportedPage,
  updateImportedRef,
  writeAsOwner,
} from './store.ts';

export interface ImportReport {
  created: number;
  updated: number;
  unchanged: number;
  skipped: { path: string; reason: string }[];
  /** Capture jobs queued (?capture=true). */
  captures: number;
}

export interface ImportOptions {
  dryRun: boolean;
  capture: boolean;
}

export type ImportSource =
  | { kind: 'zip'; zip: ZipSource }
  | { kind: 'bookmarks'; name: string; html: string };

const refusalCodes = {
  invalid: 'ZIP_INVALID',
  unsafe: 'ZIP_UNSAFE_ENTRY',
  limit: 'ZIP_LIMIT_EXCEEDED',
} as const;

/** What kind of file an upload is, by its first bytes: a zip, a bookmark file, or neither (415). */
export function sourceKind(head: Buffer): 'zip' | 'bookmarks' {
  if (head.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return 'zip';
  if (isBookmarkFile(head.toString('utf8'))) return 'bookmarks';
  throw hubError(
    'IMPORT_FORMAT_UNKNOWN',
    'import takes a zip of Markdown files or a Netscape bookmark file (<!DOCTYPE NETSCAPE-Bookmark-file-1>)',
  );
}

/** Rolls the dry run's transaction back, carrying its report out. */
class DryRun extends Error {
  readonly report: ImportReport;
  constructor(report: ImportReport) {
    super('dry run');
    this.report = report;
  }
}

interface Deps {
  sql: Sql;
  config: Pick<Config, 'ingest' | 'icons'>;
}

export async function importInto(
  deps: Deps,
  spaceId: string,
  source: ImportSource,
  options: ImportOptions,
): Promise<ImportReport> {
  const files = source.kind === 'zip' ? await zipFiles(source.zip, deps.config.icons.zip) : null;
  const report: ImportReport = { created: 0, updated: 0, unchanged: 0, skipped: [], captures: 0 };
  try {
    await deps.sql.begin(async (tx) => {
      await writeAsOwner(tx);
      if (files) {
        const markdown: { path: string; file: MarkdownFile }[] = [];
        for (const entry of files) {
          const text = entry.bytes.toString('utf8');
          if (/\.html?$/i.test(entry.path) && isBookmarkFile(text)) {
            await importBookmarks(
              tx,
              deps.config,
              spaceId,
              entry.path,
              await parseBookmarks(text),
              options,
              report,
            );
          } else if (!/\.md$/i.test(entry.path)) {
            report.skipped.push({ path: entry.path, reason: 'not a Markdown file or a bookmark file' });
          } else if (entry.path.split('/').some((part) => part.startsWith('.'))) {
            report.skipped.push({ path: entry.path, reason: 'in a hidden folder (editor settings)' });
          } else {
            const file = readMarkdown(entry.path, text, report);
            if (file) markdown.push({ path: entry.path, file });
          }
        }
        await importPages(tx, spaceId, markdown, report);
      } else if (source.kind === 'bookmarks') {
        const bookmarks = await parseBookmarks(source.html);
        await importBookmarks(tx, deps.config, spaceId, source.name, bookmarks, options, report);
      }
      if (options.dryRun) throw new DryRun(report);
    });
  } catch (error) {
    if (error instanceof DryRun) return error.report;
    throw error;
  }
  return report;
}

async function zipFiles(zip: ZipSource, limits: Config['icons']['zip']) {
  try {
    return await readZip(zip, limits);
  } catch (error) {
    if (error instanceof ZipRefusedError) throw hubError(refusalCodes[error.kind], error.message);
    throw error;
  }
}

/** A file's text and front matter, or null (reported skipped) when it cannot become a page. */
function readMarkdown(path: string, text: string, report: ImportReport): MarkdownFile | null {
  if (text.includes('\u0000')) {
    report.skipped.push({ path, reason: 'holds NUL characters (not a text file)' });
    return null;
  }
  try {
    const file = parseMarkdown(text);
    if (file.front.type === 'project' || file.front.type === 'document') {
      report.skipped.push({
        path,
        reason: `a ${file.front.type} file: import takes pages and bookmarks (projects and documents are exported for reading)`,
      });
      return null;
    }
    return file;
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error;
    report.skipped.push({ path, reason: error.message });
    return null;
  }
}

interface PageNode {
  /** The path without `.md`: "Guides/Setup". */
  key: string;
  parentKey: string | null;
  name: string;
  /** Absent for a folder without a file of its own (or whose file was skipped): it becomes an empty page. */
  file: MarkdownFile | null;
}

/** The tree the paths describe, parents before children, siblings in archive order. */
function pageNodes(files: { path: string; file: MarkdownFile }[]): PageNode[] {
  const nodes = new Map<string, PageNode>();
  const add = (key: string, file: MarkdownFile) => {
    const parts = key.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join('/');
      if (!nodes.has(folder)) {
        nodes.set(folder, {
          key: folder,
          parentKey: depth > 1 ? parts.slice(0, depth - 1).join('/') : null,
          name: parts[depth - 1],
          file: null,
        });
      }
    }
    const existing = nodes.get(key);
    if (existing) existing.file = file;
    else {
      nodes.set(key, {
        key,
        parentKey: parts.length > 1 ? parts.slice(0, -1).join('/') : null,
        name: parts[parts.length - 1],
        file,
      });
    }
  };
  for (const { path, file } of files) add(path.replace(/\.md$/i, ''), file);
  const depth = (node: PageNode) => node.key.split('/').length;
  return [...nodes.values()].sort((a, b) => depth(a) - depth(b));
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((tag, index) => tag === b[index]);
}

async function importPages(
  tx: Db,
  spaceId: string,
  files: { path: string; file: MarkdownFile }[],
  report: ImportReport,
): Promise<void> {
  if (files.length === 0) return;
  await lockPageTree(tx, spaceId);
  const pages = await spacePages(tx, spaceId);
  const byId = new Map(pages.map((page) => [page.id, page]));
  const nextPosition = new Map<string | null, number>();
  for (const page of pages) {
    nextPosition.set(page.parent_id, Math.max(nextPosition.get(page.parent_id) ?? 0, page.position + 1));
  }
  const takePosition = (parentId: string | null) => {
    const position = nextPosition.get(parentId) ?? 0;
    nextPosition.set(parentId, position + 1);
    return position;
  };
  const used = new Set<string>();
  const idOfKey = new Map<string, string>();

  for (const node of pageNodes(files)) {
    const parentId = node.parentKey === null ? null : (idOfKey.get(node.parentKey) ?? null);
    const front = node.file?.front;
    const title = [...(front?.title ?? node.name).trim()].slice(0, 500).join('') || 'Untitled';
    const byFrontId = front?.id ? byId.get(front.id) : undefined;
    const match: ExistingPage | undefined =
      byFrontId && !used.has(byFrontId.id)
        ? byFrontId
        : pages.find((page) => !used.has(page.id) && page.parent_id === parentId && page.title === title);
    const body = node.file ? bodyWithExtra(node.file.body, node.file.front.extra) : (match?.body ?? '');
    const tags = node.file ? node.file.front.tags : (match?.tags ?? []);
    if (match) {
      used.add(match.id);
      idOfKey.set(node.key, match.id);
      if (
        match.title === title &&
        match.body === body &&
        sameTags(match.tags, tags) &&
        match.parent_id === parentId
      ) {
        report.unchanged++;
        continue;
      }
      const position = match.parent_id === parentId ? match.position : takePosition(parentId);
      await updateImportedPage(tx, match.id, { parent_id: parentId, position, title, body, tags });
      Object.assign(match, { parent_id: parentId, position, title, body, tags });
      report.updated++;
      continue;
    }
    const id = await insertImportedPage(tx, {
      space_id: spaceId,
      parent_id: parentId,
      position: takePosition(parentId),
      title,
      body,
      tags,
      created_at: instant(front?.created),
      updated_at: instant(front?.updated),
    });
    used.add(id);
    idOfKey.set(node.key, id);
    report.created++;
  }
}

async function importBookmarks(
  tx: Db,
  config: Pick<Config, 'ingest'>,
  spaceId: string,
  file: string,
  bookmarks: Bookmark[],
  options: ImportOptions,
  report: ImportReport,
): Promise<void> {
  if (bookmarks.length === 0) {
    report.skipped.push({ path: file, reason: 'the bookmark file holds no bookmarks' });
    return;
  }
  const createdHere = new Set<string>();
  for (const bookmark of bookmarks) {
    const path = `${file}: ${bookmark.folder ? `${bookmark.folder}/` : ''}${bookmark.title || bookmark.url}`;
    if (!isWebUrl(bookmark.url) || bookmark.url.length > 8192) {
      report.skipped.push({ path, reason: `not an http(s) link: ${bookmark.url.slice(0, 100)}` });
      continue;
    }
    const url = new URL(bookmark.url).href;
    const title = [...bookmark.title].slice(0, 1000).join('');
    const notes = bookmark.description.slice(0, 200_000);
    const tags = bookmark.tags.map((tag) => tag.slice(0, 200));
    const digest = createHash('sha256').update(`${spaceId} ${url}`).digest('hex');
    const existing = await refByUrl(tx, spaceId, url);
    if (existing) {
      const merged = {
        title: existing.title || title,
        notes: existing.notes || notes,
        tags: [...new Set([...existing.tags, ...tags])],
      };
      const same =
        merged.title === existing.title &&
        merged.notes === existing.notes &&
        sameTags(merged.tags, existing.tags);
      if (!same) await updateImportedRef(tx, existing.id, merged);
      // A link listed twice in one file is one reference, counted once.
      if (!createdHere.has(existing.id)) {
        if (same) report.unchanged++;
        else report.updated++;
      }
    } else {
      const id = await insertImportedRef(tx, {
        space_id: spaceId,
        external_id: digest,
        url,
        title,
        notes,
        tags,
        created_at: bookmark.added,
      });
      createdHere.add(id);
      report.created++;
    }
    if (options.capture) {
      const captured = await captureIn(tx, config, {
        url: new URL(url),
        idempotency_key: `import:${digest}`,
        space_id: spaceId,
        title: title || null,
        via: 'api',
        tags,
      });
      if (!captured.duplicate) report.captures++;
    }
  }
}
