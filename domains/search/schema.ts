import { Type } from 'typebox';
import { PageQuery, Uuid } from '../../lib/schemas.ts';

export const searchKinds = [
  'pages',
  'projects',
  'tasks',
  'resources',
  'refs',
  'source_docs',
  'messages',
  'apps',
  'feed_items',
] as const;
export type SearchKind = (typeof searchKinds)[number];

/** Singular or plural: `page` or `pages`, `source_doc` or `source_docs`. */
const kindName = `(${searchKinds.map((kind) => `${kind.slice(0, -1)}s?`).join('|')})`;

export const SearchQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    q: Type.String({
      minLength: 1,
      maxLength: 1000,
      pattern: '\\S',
      description:
        'web-search syntax: words, "quoted phrases", -excluded, or; the last word also matches as a prefix',
    }),
    space_id: Type.Optional(Uuid),
    kinds: Type.Optional(
      Type.String({
        pattern: `^${kindName}(,${kindName})*$`,
        description:
          `comma-separated subset of ${searchKinds.join(', ')}, singular or plural (default all); ` +
          'may also be repeated',
      }),
    ),
  }),
]);

export const SearchHit = Type.Object({
  kind: Type.Enum([...searchKinds]),
  id: Uuid,
  title: Type.String(),
  snippet: Type.String({
    description: 'HTML: the matched words wrapped in <mark>…</mark>, everything else escaped',
  }),
  rank: Type.Number(),
  space_id: Type.Optional(Uuid),
  parent_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'pages: the parent page' })),
  project_id: Type.Optional(Uuid),
  url: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'refs, source documents and feed items; apps: their link',
    }),
  ),
});

const counts = Object.fromEntries(
  searchKinds.map((kind) => [kind, Type.Optional(Type.Integer({ minimum: 0 }))]),
);

export const SearchResult = Type.Object({
  items: Type.Array(SearchHit),
  total: Type.Integer({ minimum: 0 }),
  total_is_estimate: Type.Boolean({
    description: 'true when more than 10,000 rows match: total and facets are then estimates',
  }),
  facets: Type.Object(
    {
      ...counts,
      tags: Type.Optional(
        Type.Array(Type.Object({ tag: Type.String(), count: Type.Integer({ minimum: 1 }) }), {
          description: 'the tags of the hits listed, most used first',
        }),
      ),
    },
    { description: 'matches per searched kind, and the tags of the hits listed' },
  ),
  suggestions: Type.Array(Type.String(), {
    description: 'when nothing matches: the query with close spellings from the words already written',
  }),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
