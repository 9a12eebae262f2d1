// `[[Page title]]` and `[[Page title|shown text]]` in a page's Markdown: the titles a body links to, and a body with
// the links to one title pointed at another (a renamed page). The web app's Markdown reads the same syntax.

/** One wiki link: the title inside the brackets, then optionally `|` and the text shown. */
const wikiLink = /\[\[([^[\]|\n]+)(\|[^[\]\n]*)?\]\]/g;

/** The distinct titles a body links to (trimmed; at most 500 characters, as a title). */
export function linkedTitles(body: string): string[] {
  const titles = new Set<string>();
  for (const match of body.matchAll(wikiLink)) {
    const title = match[1].trim();
    if (title !== '' && title.length <= 500) titles.add(title);
  }
  return [...titles];
}

/** The body with every link to `from` (any case) linking to `to`; the shown text, when given, is kept. */
export function relinked(body: string, from: string, to: string): string {
  const wanted = from.trim().toLowerCase();
  return body.replace(wikiLink, (link, title: string, shown: string | undefined) =>
    title.trim().toLowerCase() === wanted ? `[[${to}${shown ?? ''}]]` : link,
  );
}
