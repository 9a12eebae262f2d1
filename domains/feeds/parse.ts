// A feed's answer as the hub keeps it: RSS 2.0 (and 0.9x, RDF), Atom and JSON Feed read by feedsmith, each item
// reduced to an id, a link, a title, a summary and a date. Items without an id or a link are left out: without one
// there is nothing to tell them apart by on the next poll.
import type { parseFeed } from 'feedsmith';
import { lazy } from '../../lib/lazy.ts';
import type { NewItem } from './store.ts';

// The feed parser (and the XML parser under it) loads at the first poll, not at every start.
export const feedsmith = lazy(() => import('feedsmith'));

export class FeedFormatError extends Error {}

export interface ParsedFeed {
  title: string | null;
  items: NewItem[];
}

type Text = string | { value?: string } | undefined | null;

/** Atom's text constructs are objects, the other formats' plain strings. */
function text(value: Text): string {
  const raw = typeof value === 'string' ? value : (value?.value ?? '');
  return raw.trim();
}

/** Markup out and whitespace folded: a summary is shown and searched as text. */
function plain(value: string, max: number): string {
  return value
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max);
}

function date(value: string | undefined | null): Date | null {
  if (!value) return null;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? null : parsed;
}

/** An http(s) link resolved against the feed's own address, or null. */
function link(value: string | undefined | null, base: string): string | null {
  if (!value) return null;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href.slice(0, 4096) : null;
  } catch {
    return null;
  }
}

function item(
  guid: string | undefined | null,
  url: string | null,
  title: string,
  summary: string,
  published: Date | null,
): NewItem | null {
  const id = (guid?.trim() || url || '').slice(0, 2000);
  if (!id) return null;
  return {
    guid: id,
    url,
    title: plain(title, 500),
    summary: plain(summary, 20_000),
    published_at: published,
  };
}

/** The feed's title and items; a body that is no feed of a known format is a FeedFormatError. */
export async function readFeed(body: string, feedUrl: string): Promise<ParsedFeed> {
  const { parseFeed: parse } = await feedsmith();
  let parsed: ReturnType<typeof parseFeed>;
  try {
    parsed = parse(body);
  } catch (error) {
    throw new FeedFormatError(`not a feed: ${(error as Error).message}`);
  }
  const items: (NewItem | null)[] = [];
  let title: Text;
  switch (parsed.format) {
    case 'rss':
    case 'rdf': {
      const feed = parsed.feed as {
        title?: string;
        items?: {
          title?: string;
          link?: string;
          description?: string;
          content?: { encoded?: string };
          guid?: { value?: string } | string;
          pubDate?: string;
          dc?: { date?: string };
        }[];
      };
      title = feed.title;
      for (const entry of feed.items ?? []) {
        const url = link(entry.link, feedUrl);
        const guid = typeof entry.guid === 'string' ? entry.guid : entry.guid?.value;
        items.push(
          item(
            guid,
            url,
            text(entry.title),
            entry.description ?? entry.content?.encoded ?? '',
            date(entry.pubDate ?? entry.dc?.date),
          ),
        );
      }
      break;
    }
    case 'atom': {
      const feed = parsed.feed as {
        title?: Text;
        entries?: {
          id?: string;
          title?: Text;
          links?: { href?: string; rel?: string }[];
          summary?: Text;
          content?: Text;
          published?: string;
          updated?: string;
        }[];
      };
      title = feed.title;
      for (const entry of feed.entries ?? []) {
        const links = entry.links ?? [];
        const alternate = links.find((l) => !l.rel || l.rel === 'alternate') ?? links[0];
        items.push(
          item(
            entry.id,
            link(alternate?.href, feedUrl),
            text(entry.title),
            text(entry.summary) || text(entry.content),
            date(entry.published ?? entry.updated),
          ),
        );
      }
      break;
    }
    case 'json': {
      const feed = parsed.feed as {
        title?: string;
        items?: {
          id?: string | number;
          url?: string;
          external_url?: string;
          title?: string;
          summary?: string;
          content_text?: string;
          content_html?: string;
          date_published?: string;
          date_modified?: string;
        }[];
      };
      title = feed.title;
      for (const entry of feed.items ?? []) {
        items.push(
          item(
            entry.id === undefined ? undefined : String(entry.id),
            link(entry.url ?? entry.external_url, feedUrl),
            text(entry.title),
            entry.summary ?? entry.content_text ?? entry.content_html ?? '',
            date(entry.date_published ?? entry.date_modified),
          ),
        );
      }
      break;
    }
    default:
      throw new FeedFormatError('not a feed of a known format');
  }
  return { title: plain(text(title), 500) || null, items: items.filter((i): i is NewItem => i !== null) };
}
