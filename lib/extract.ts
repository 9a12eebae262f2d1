// Turns fetched or uploaded bytes into a document: its type (declared, then checked against the bytes), a title
// and readable text. HTML goes through Readability over linkedom, with the page's <title> and body text as the
// fallback when Readability finds no article; text and Markdown are kept as they are; PDF text comes from unpdf.
import { TextDecoder } from 'node:util';
import type { Readability } from '@mozilla/readability';
import type { getDocumentProxy } from 'unpdf';
import { lazy } from './lazy.ts';

// Loaded when the first document of their kind is extracted: linkedom alone takes about 0.3 s to load.
const htmlLibraries = lazy(async () => {
  const [{ parseHTML }, { isProbablyReaderable, Readability }] = await Promise.all([
    import('linkedom'),
    import('@mozilla/readability'),
  ]);
  return { parseHTML, isProbablyReaderable, Readability };
});
const pdfLibrary = lazy(() => import('unpdf'));

export type DocumentType = 'text/html' | 'text/plain' | 'text/markdown' | 'application/pdf';
export const documentTypes: readonly DocumentType[] = [
  'text/html',
  'text/plain',
  'text/markdown',
  'application/pdf',
];

/**
 * Stored text is capped (DOCUMENT_MAX_CHARS, this by default): nobody reads half a million characters of one page,
 * and the row stays small. The metadata says when a document was cut (truncated, original_chars); search indexes
 * all of what is stored.
 */
export const maxContentChars = 500_000;
const maxTitleChars = 500;

export interface Extracted {
  title: string | null;
  content: string;
  content_type: DocumentType;
  metadata: Record<string, unknown>;
}

/** An unreadable document: unsupported type, not what it claims to be, a broken PDF. Retrying cannot help. */
export class ExtractionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExtractionError';
  }
}

/** `text/html; charset=utf-8` → `text/html`. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function charsetParameter(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType ?? '');
  return match ? match[1].toLowerCase() : null;
}

function decoderFor(label: string | null): TextDecoder {
  try {
    return new TextDecoder(label ?? 'utf-8');
  } catch {
    return new TextDecoder('utf-8');
  }
}

/** Decodes text by the charset the header names, else a BOM or an HTML <meta> charset, else UTF-8. */
export function decodeText(bytes: Uint8Array, contentType?: string, html = false): string {
  let label = charsetParameter(contentType);
  if (!label && html) {
    const head = Buffer.from(bytes.subarray(0, 2048)).toString('latin1');
    const meta = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head);
    if (meta) label = meta[1].toLowerCase();
  }
  // TextDecoder honours a BOM over the label, which is what browsers do too.
  return decoderFor(label).decode(bytes);
}

const extensionTypes: Record<string, DocumentType> = {
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'text/html',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  text: 'text/plain',
  pdf: 'application/pdf',
};

const declaredTypes: Record<string, DocumentType> = {
  'text/html': 'text/html',
  'application/xhtml+xml': 'text/html',
  'text/markdown': 'text/markdown',
  'text/x-markdown': 'text/markdown',
  'text/plain': 'text/plain',
  'application/pdf': 'application/pdf',
};

// Declarations that say nothing about the content: the name and the bytes decide.
const vagueTypes = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/x-download']);

function extensionOf(name: string | undefined): string {
  const match = /\.([a-z0-9]+)$/i.exec(name ?? '');
  return match ? match[1].toLowerCase() : '';
}

function isPdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(0, 1024)).includes('%PDF-');
}

function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 512))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /^<\?xml[^>]*>\s*<html/.test(head);
}

/** Text carries no NUL bytes; a NUL in the first 8 KiB means a binary format whatever the label says. */
function looksLikeText(bytes: Uint8Array): boolean {
  return !Buffer.from(bytes.subarray(0, 8192)).includes(0);
}

/**
 * The document type of `bytes`, from what the sender declared (Content-Type or the upload's part type), the file
 * or path name and the bytes themselves; null when it is none of the four supported types or the bytes
 * contradict the declaration (a "PDF" without the PDF signature, "text" with binary content).
 */
export function sniffType(bytes: Uint8Array, declared: string, name?: string): DocumentType | null {
  const type = mediaType(declared);
  const byName = extensionTypes[extensionOf(name)];
  const pdf = type === 'application/pdf' || vagueTypes.has(type) || byName === 'application/pdf';
  if (pdf && isPdf(bytes)) return 'application/pdf';
  if (type === 'application/pdf' || !looksLikeText(bytes)) return null;
  const claimed = declaredTypes[type];
  if (claimed === 'text/plain') {
    // Browsers and servers label Markdown and saved pages text/plain all the time; the name is more specific.
    if (byName === 'text/markdown' || byName === 'text/html') return byName;
    return 'text/plain';
  }
  if (claimed) return claimed;
  if (!vagueTypes.has(type)) return null;
  if (byName && byName !== 'application/pdf') return byName;
  return looksLikeHtml(bytes) ? 'text/html' : 'text/plain';
}

// ---------------------------------------------------------------------------------------------------------------
// Text

/** Trims lines, collapses runs of blanks inside lines and of empty lines between paragraphs. */
export function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function capTitle(title: string | null | undefined): string | null {
  const clean = title?.replace(/\s+/g, ' ').trim();
  if (!clean) return null;
  return clean.length > maxTitleChars ? `${clean.slice(0, maxTitleChars - 1)}…` : clean;
}

function finish(
  title: string | null | undefined,
  content: string,
  contentType: DocumentType,
  metadata: Record<string, unknown>,
): Extracted {
  return { title: capTitle(title), content, content_type: contentType, metadata };
}

/** The document cut to `maxChars` characters, saying so in its metadata. */
export function capContent(doc: Extracted, maxChars: number): Extracted {
  if (doc.content.length <= maxChars) return doc;
  return {
    ...doc,
    content: doc.content.slice(0, maxChars),
    metadata: { ...doc.metadata, truncated: true, original_chars: doc.content.length, kept_chars: maxChars },
  };
}

export function extractPlain(text: string, contentType: 'text/plain' | 'text/markdown'): Extracted {
  const content = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const heading =
    contentType === 'text/markdown' ? /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(content.slice(0, 10_000)) : null;
  return finish(heading?.[1] ?? null, content.trim(), contentType, {});
}

// ---------------------------------------------------------------------------------------------------------------
// HTML

// The few DOM members used here: linkedom's documents are typed against the browser DOM, which this project's
// TypeScript settings (no "dom" lib) do not load.
interface DomNode {
  nodeType: number;
  nodeName: string;
  nodeValue: string | null;
  childNodes: ArrayLike<DomNode>;
}
interface DomDocument {
  body: DomNode | null;
  documentElement: DomNode | null;
  querySelector(selector: string): { textContent: string | null } | null;
}

const skippedElements = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'IFRAME',
  'HEAD',
  'OBJECT',
]);
const blockElements = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TR',
  'UL',
]);

/** Text of a subtree with line breaks where blocks end, so words of adjacent paragraphs never run together. */
function textOf(node: DomNode, out: string[]): void {
  if (node.nodeType === 3) {
    out.push(node.nodeValue ?? '');
    return;
  }
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
  const name = node.nodeName.toUpperCase();
  if (skippedElements.has(name)) return;
  if (name === 'BR') {
    out.push('\n');
    return;
  }
  const block = blockElements.has(name);
  if (block) out.push('\n');
  for (let i = 0; i < node.childNodes.length; i++) textOf(node.childNodes[i], out);
  if (block) out.push('\n');
  else if (name === 'TD' || name === 'TH') out.push('\t');
}

function readableText(node: DomNode | null): string {
  if (!node) return '';
  const out: string[] = [];
  textOf(node, out);
  return tidyText(out.join(''));
}

export async function extractHtml(html: string): Promise<Extracted> {
  const dom = await htmlLibraries();
  const parse = (markup: string) => dom.parseHTML(markup).document as unknown as DomDocument;
  const document = parse(html);
  const pageTitle = document.querySelector('title')?.textContent ?? null;
  let article: ReturnType<Readability['parse']> = null;
  try {
    // Readability always returns its best guess; on a page without an article (a status page, a short form) that
    // guess drops text the page is about, so such pages are kept whole instead. It also edits the document it
    // reads; the fallback below works on a fresh parse.
    if (dom.isProbablyReaderable(document as never)) {
      article = new dom.Readability(document as never).parse();
    }
  } catch {
    article = null;
  }
  const articleText = article?.content ? readableText(parse(article.content).documentElement) : '';
  if (article && articleText) {
    const metadata: Record<string, unknown> = { extractor: 'readability' };
    if (article.byline) metadata.byline = article.byline;
    if (article.excerpt) metadata.excerpt = article.excerpt;
    if (article.siteName) metadata.site_name = article.siteName;
    if (article.lang) metadata.lang = article.lang;
    if (article.publishedTime) metadata.published_time = article.publishedTime;
    return finish(article.title || pageTitle, articleText, 'text/html', metadata);
  }
  const fresh = parse(html);
  return finish(pageTitle, readableText(fresh.body ?? fresh.documentElement), 'text/html', {
    extractor: 'body',
  });
}

// ---------------------------------------------------------------------------------------------------------------
// PDF

export async function extractPdf(bytes: Uint8Array): Promise<Extracted> {
  const unpdf = await pdfLibrary();
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: pdf.js takes ownership of (detaches) the buffer it is given.
    // verbosity 0: errors only; a damaged file's repair warnings would otherwise go straight to the console.
    pdf = await unpdf.getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    throw new ExtractionError(`not a readable PDF (${(error as Error).message})`, { cause: error });
  }
  try {
    const { totalPages, text } = await unpdf.extractText(pdf, { mergePages: true });
    const meta = await pdf.getMetadata().catch(() => null);
    const info = (meta?.info ?? {}) as { Title?: unknown; Author?: unknown };
    const metadata: Record<string, unknown> = { pages: totalPages };
    if (typeof info.Author === 'string' && info.Author.trim()) metadata.author = info.Author.trim();
    return finish(
      typeof info.Title === 'string' ? info.Title : null,
      tidyText(text),
      'application/pdf',
      metadata,
    );
  } catch (error) {
    throw new ExtractionError(`the PDF's text could not be read (${(error as Error).message})`, {
      cause: error,
    });
  } finally {
    // Frees pdf.js's worker-side copy of the document.
    await pdf.loadingTask.destroy().catch(() => undefined);
  }
}

/**
 * Extracts a document of a known type, its text cut to `maxChars`; the content type header only matters for the
 * text encoding.
 */
export async function extractDocument(
  bytes: Uint8Array,
  type: DocumentType,
  contentType?: string,
  maxChars = maxContentChars,
): Promise<Extracted> {
  return capContent(await extractWhole(bytes, type, contentType), maxChars);
}

async function extractWhole(bytes: Uint8Array, type: DocumentType, contentType?: string): Promise<Extracted> {
  switch (type) {
    case 'application/pdf':
      return extractPdf(bytes);
    case 'text/html':
      return extractHtml(decodeText(bytes, contentType, true));
    default:
      return extractPlain(decodeText(bytes, contentType), type);
  }
}
