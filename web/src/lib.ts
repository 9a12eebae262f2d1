// Small helpers shared by the screens: Markdown to safe HTML, dates, numbers.
import DOMPurify from 'dompurify';
import { Marked, type MarkedExtension, type Tokens } from 'marked';

// Task-list items are drawn as text: an <input> has no place in rendered content.
const options: MarkedExtension = {
  gfm: true,
  renderer: { checkbox: ({ checked }) => (checked ? '\u2611 ' : '\u2610 ') },
};
const marked = new Marked(options);

/**
 * Where `[[Page title]]` leads: the page's address, or where to create it (`missing`) when the space has no page of
 * that title; null for no link at all.
 */
export type WikiLinks = (title: string) => { href: string; missing?: boolean } | null;

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c]);

/**
 * `[[Page title]]` and `[[Page title|shown text]]` (the syntax the server keeps backlinks of): a link to the page,
 * or, when the space has no page of that title, a "create" link (titled "Create this page") to a new page of that title.
 */
function wikiLinks(resolve: WikiLinks): MarkedExtension {
  return {
    extensions: [
      {
        name: 'wikiLink',
        level: 'inline',
        start: (source) => source.indexOf('[['),
        tokenizer(source) {
          const match = /^\[\[([^[\]|\n]+)(?:\|([^[\]\n]*))?\]\]/.exec(source);
          if (!match) return undefined;
          const title = match[1].trim();
          return { type: 'wikiLink', raw: match[0], title, text: match[2]?.trim() || title };
        },
        renderer(token: Tokens.Generic) {
          const link = resolve(token.title);
          const text = escapeHtml(token.text);
          if (!link) return text;
          // A title attribute, not a class: the sanitiser keeps classes of code blocks only.
          const missing = link.missing ? ' title="Create this page"' : '';
          return `<a href="${escapeHtml(link.href)}"${missing}>${text}</a>`;
        },
      },
    ],
  };
}

// Rendered content (pages, documents, assistant replies, drafts) is text anyone with write access could have written,
// an agent included: it keeps what Markdown itself produces and nothing else. No form, button, input, select,
// textarea, style, frame or object, no style attribute, no class but a code block's language, no id or name (no
// clobbering the app's own elements); links only to the web, mail and the app's own paths.
const markdownTags = [
  'a',
  'blockquote',
  'br',
  'code',
  'del',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'img',
  'li',
  'ol',
  'p',
  'pre',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
];
const markdownAttributes = ['href', 'title', 'src', 'alt', 'align', 'start', 'class'];
// http:, https:, mailto:, a path of this app (`/knowledge`, never `//host`) or a fragment. DOMPurify strips
// whitespace and control characters before it tests, so `java\tscript:` is caught as well.
const allowedUrl = /^(?:https?:|mailto:|\/(?![/\\])|#)/i;

const purifier = DOMPurify(window);
purifier.addHook('afterSanitizeAttributes', (node) => {
  const element = node as Element;
  const classes = element.getAttribute?.('class');
  if (classes !== null && classes !== undefined) {
    const language =
      element.tagName === 'CODE' ? classes.split(/\s+/).filter((c) => /^language-[\w+-]+$/.test(c)) : [];
    if (language.length > 0) element.setAttribute('class', language.join(' '));
    else element.removeAttribute('class');
  }
  // An image is a request sent with the owner's cookie the moment the content is shown: none to the API.
  if (
    element.tagName === 'IMG' &&
    element.hasAttribute('src') &&
    reachesApi(element.getAttribute('src') ?? '')
  ) {
    element.removeAttribute('src');
  }
});

function reachesApi(src: string): boolean {
  let url: URL;
  try {
    url = new URL(src, window.location.href);
  } catch {
    return true;
  }
  if (url.origin !== window.location.origin) return false;
  let path: string;
  try {
    path = decodeURIComponent(url.pathname).toLowerCase();
  } catch {
    return true;
  }
  return path === '/api' || path.startsWith('/api/');
}

/** Markdown rendered by marked, then cut down to what Markdown produces; with `links`, `[[Page title]]` links too. */
export function markdown(source: string, links?: WikiLinks): string {
  const parser = links ? new Marked(options, wikiLinks(links)) : marked;
  return purifier.sanitize(parser.parse(source, { async: false }) as string, {
    ALLOWED_TAGS: markdownTags,
    ALLOWED_ATTR: markdownAttributes,
    ALLOWED_URI_REGEXP: allowedUrl,
    // DOMPurify tests every attribute it does not know as safe against the URL rule: these hold no URL.
    ADD_URI_SAFE_ATTR: ['align', 'start'],
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
  });
}

/** The search snippet's HTML keeps its <mark> highlights and nothing else. */
export function snippetHtml(html: string): string {
  return DOMPurify.sanitize(html, { ALLOWED_TAGS: ['mark'], ALLOWED_ATTR: [] });
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function ago(when: string | null | undefined): string {
  if (!when) return '—';
  const seconds = (new Date(when).getTime() - Date.now()) / 1000;
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

export function dateTime(when: string | null | undefined): string {
  return when ? new Date(when).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '—';
}

/** A size for people: bytes, KB or MB (binary units, one decimal). */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
