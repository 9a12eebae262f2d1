// OPML 2.0, the format feed readers exchange subscriptions in. Import reads every outline with an xmlUrl; the texts
// of the outlines it sits in (folders) and its `category` paths become its tags. Export nests each feed under its
// first tag, as readers show folders, and lists all its tags in `category`, so a round trip keeps them.
import type { parseOpml } from 'feedsmith';
import { hubError } from '../../lib/errors.ts';
import { fittedTags } from '../../lib/tags.ts';
import { feedsmith } from './parse.ts';

export interface OpmlFeed {
  url: string;
  title: string;
  tags: string[];
}

interface Outline {
  text?: string;
  title?: string;
  xmlUrl?: string;
  category?: string;
  type?: string;
  outlines?: Outline[];
}

/** The feeds of an OPML document; one that is not OPML is a 400 OPML_INVALID. */
export async function readOpml(text: string): Promise<OpmlFeed[]> {
  const { parseOpml: parse } = await feedsmith();
  let document: ReturnType<typeof parseOpml>;
  try {
    document = parse(text);
  } catch (error) {
    throw hubError('OPML_INVALID', `not an OPML document: ${(error as Error).message}`);
  }
  const feeds: OpmlFeed[] = [];
  const walk = (outlines: Outline[], folders: string[]) => {
    for (const outline of outlines) {
      const name = (outline.title ?? outline.text ?? '').trim();
      if (outline.xmlUrl) {
        const categories = (outline.category ?? '')
          .split(',')
          .flatMap((path) => path.split('/'))
          .filter((part) => part.trim() !== '');
        feeds.push({
          url: outline.xmlUrl.trim(),
          title: name.slice(0, 500),
          tags: fittedTags([...folders, ...categories]),
        });
      }
      if (outline.outlines) walk(outline.outlines, name && !outline.xmlUrl ? [...folders, name] : folders);
    }
  };
  walk((document.body?.outlines ?? []) as Outline[], []);
  return feeds;
}

/** An OPML 2.0 document of the feeds. */
export async function writeOpml(feeds: readonly OpmlFeed[], now: Date): Promise<string> {
  const { generateOpml } = await feedsmith();
  const outline = (feed: OpmlFeed): Outline => ({
    text: feed.title || feed.url,
    title: feed.title || feed.url,
    type: 'rss',
    xmlUrl: feed.url,
    ...(feed.tags.length > 0
      ? { category: feed.tags.map((tag) => `/${tag.replace(/[/,]/g, ' ')}`).join(',') }
      : {}),
  });
  const folders = new Map<string, Outline[]>();
  const loose: Outline[] = [];
  for (const feed of feeds) {
    const [first] = feed.tags;
    if (first === undefined) loose.push(outline(feed));
    else folders.set(first, [...(folders.get(first) ?? []), outline(feed)]);
  }
  const outlines: Outline[] = [
    ...[...folders].map(([text, children]) => ({ text, title: text, outlines: children })),
    ...loose,
  ];
  // OPML asks for one outline or more, and the generator refuses none: with no feed the document is written whole.
  if (outlines.length === 0) {
    return `<?xml version="1.0" encoding="utf-8"?>\n<opml version="2.0"><head><title>ops-hub feeds</title><dateCreated>${now.toUTCString()}</dateCreated></head><body/></opml>\n`;
  }
  return generateOpml({
    head: { title: 'ops-hub feeds', dateCreated: now },
    body: { outlines },
  } as never) as string;
}
