// Reading Homepage's configuration files (services.yaml, bookmarks.yaml, widgets.yaml) with the `yaml` library: each
// file is a list of one-key maps (a group, or a widget, and its content). Malformed YAML is a 400 naming the file,
// line and column; a file of the wrong shape names what was expected.
import { parseDocument } from 'yaml';
import { hubErrorWith } from '../../lib/errors.ts';

export type HomepageFile = 'services' | 'bookmarks' | 'widgets';

export interface HomepageService {
  group: string;
  name: string;
  fields: Record<string, unknown>;
}

export interface HomepageBookmark {
  group: string;
  name: string;
  href: unknown;
  description: unknown;
}

export interface HomepageWidget {
  type: string;
  options: Record<string, unknown>;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shapeError(file: HomepageFile, problem: string): Error {
  return hubErrorWith({ file }, 'IMPORT_INVALID', `${file}.yaml: ${problem}`);
}

/** The file's content as plain data; 400 IMPORT_YAML_INVALID with the line and column of the first error. */
export function parseYaml(file: HomepageFile, text: string): unknown {
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: false });
  const [error] = document.errors;
  if (error) {
    const position = error.linePos?.[0];
    const line = position?.line ?? 1;
    const column = position?.col ?? 1;
    const reason = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw hubErrorWith(
      { file, line, column },
      'IMPORT_YAML_INVALID',
      `${file}.yaml line ${line}, column ${column}: ${reason}`,
    );
  }
  return document.toJS({ maxAliasCount: 100 });
}

/** `- Group: [ ... ]` as [group, entries]. An empty file is no groups. */
function groups(file: HomepageFile, data: unknown): [string, unknown[]][] {
  if (data === null || data === undefined) return [];
  if (!Array.isArray(data)) throw shapeError(file, 'expected a list of groups (- Group name: ...)');
  return data.map((item, i) => {
    if (!isMap(item) || Object.keys(item).length !== 1) {
      throw shapeError(file, `item ${i + 1} is not a group (a one-key map: - Group name: [...])`);
    }
    const [[group, entries]] = Object.entries(item);
    return [group, Array.isArray(entries) ? entries : []];
  });
}

/** Each `- Name: { href, icon, ... }` of each group; a nested group's entries are listed under their own name. */
export function readServices(data: unknown): HomepageService[] {
  const services: HomepageService[] = [];
  // Homepage nests groups a level or two deep; deeper lists are not groups, and are not followed.
  const walk = (group: string, entries: unknown[], depth: number) => {
    for (const entry of entries) {
      if (!isMap(entry)) continue;
      for (const [name, fields] of Object.entries(entry)) {
        if (Array.isArray(fields)) {
          if (depth < 3) walk(name, fields, depth + 1);
        } else services.push({ group, name, fields: isMap(fields) ? fields : {} });
      }
    }
  };
  for (const [group, entries] of groups('services', data)) walk(group, entries, 1);
  return services;
}

/** Each `- Name: [ { href, description, ... } ]` of each group. */
export function readBookmarks(data: unknown): HomepageBookmark[] {
  const bookmarks: HomepageBookmark[] = [];
  for (const [group, entries] of groups('bookmarks', data)) {
    for (const entry of entries) {
      if (!isMap(entry)) continue;
      for (const [name, value] of Object.entries(entry)) {
        const fields = Array.isArray(value) ? value.find(isMap) : isMap(value) ? value : undefined;
        bookmarks.push({ group, name, href: fields?.href, description: fields?.description });
      }
    }
  }
  return bookmarks;
}

/** Each `- type: { options }`. */
export function readWidgets(data: unknown): HomepageWidget[] {
  return groups('widgets', data)
    .map(([type]) => type)
    .map((type, i) => {
      const item = (data as Record<string, unknown>[])[i];
      const options = item[type];
      return { type, options: isMap(options) ? options : {} };
    });
}
