// The query text: web-search syntax (words, "phrases", -excluded, or) with the last word matched as a prefix, so a
// search box can ask on every keystroke. PostgreSQL's websearch_to_tsquery parses the syntax; the last word is
// swapped for a placeholder before parsing, and the store puts the prefix match where the placeholder landed, so
// the operators around it (a phrase, an `or`) apply to the prefix as they would to the word.
import { type SearchKind, searchKinds } from './schema.ts';

/** A lexeme no text produces (checked in the tests): where the prefix match goes. */
export const placeholder = 'qxprefixslotqx';

export interface ParsedQuery {
  /** The query as written. */
  text: string;
  /** The query with its last word replaced by the placeholder, when that word is matched as a prefix. */
  withPlaceholder: string | null;
  /** That last word (letters and digits only). */
  prefix: string | null;
}

/**
 * The last word is a prefix when it is letters and digits, stands at the end (closing quotes, brackets or spaces
 * may follow), starts a token (at the start, after a space, an opening quote or bracket) and is not excluded
 * (`-word`) or the operator `or`.
 */
const lastWord = /(^|[\s"(])([\p{L}\p{N}]+)([\s")]*)$/u;

export function parseQuery(text: string): ParsedQuery {
  const match = lastWord.exec(text);
  if (!match || match[2].toLowerCase() === 'or') return { text, withPlaceholder: null, prefix: null };
  const start = match.index + match[1].length;
  return {
    text,
    withPlaceholder: `${text.slice(0, start)}${placeholder}${match[3]}`,
    prefix: match[2].toLowerCase(),
  };
}

/** Plain words of a query (no operators, no excluded words): what a spelling hint may replace. */
export function plainWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/(^|[\s"(])(-?)([\p{L}]{3,40})(?=$|[\s")])/gu)) {
    const word = match[3].toLowerCase();
    if (match[2] === '' && word !== 'or' && !words.includes(word)) words.push(word);
  }
  return words;
}

const singular: Record<string, SearchKind> = {
  page: 'pages',
  project: 'projects',
  task: 'tasks',
  resource: 'resources',
  ref: 'refs',
  source_doc: 'source_docs',
  message: 'messages',
};

/** `kinds` as sent (comma-separated, singular or plural names) to the kinds searched, in catalogue order. */
export function requestedKinds(kinds: string | undefined): SearchKind[] {
  if (kinds === undefined) return [...searchKinds];
  const names = new Set(
    kinds
      .split(',')
      .map((name) => singular[name] ?? (searchKinds as readonly string[]).find((k) => k === name)),
  );
  return searchKinds.filter((kind) => names.has(kind));
}

/**
 * Spelling hints as whole queries: each unknown word replaced by a close word, best first; then the query with one
 * unknown word replaced by its next-best word. At most `limit`.
 */
export function suggestionQueries(
  text: string,
  alternatives: ReadonlyMap<string, readonly string[]>,
  limit = 5,
): string[] {
  const unknown = [...alternatives].filter(([, words]) => words.length > 0);
  if (unknown.length === 0) return [];
  const replace = (choice: ReadonlyMap<string, string>) =>
    text.replace(/[\p{L}]+/gu, (word) => choice.get(word.toLowerCase()) ?? word);
  const best = new Map(unknown.map(([word, words]) => [word, words[0]]));
  const queries = [replace(best)];
  for (const [word, words] of unknown) {
    for (const other of words.slice(1)) queries.push(replace(new Map([...best, [word, other]])));
  }
  return [...new Set(queries)].slice(0, limit);
}
