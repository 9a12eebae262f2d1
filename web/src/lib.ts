// Small helpers shared by the screens: Markdown to safe HTML, dates, numbers.
import DOMPurify from 'dompurify';
import { marked } from 'marked';

/** Markdown rendered by marked, then sanitised: a page body is text anyone with write access could have written. */
export function markdown(source: string): string {
  return DOMPurify.sanitize(marked.parse(source, { async: false, gfm: true }) as string);
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
