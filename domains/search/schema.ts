import { Type } from 'typebox';
import { PageQuery, Uuid } from '../../lib/schemas.ts';

export const searchKinds = ['pages', 'refs', 'source_docs', 'messages'] as const;
export type SearchKind = (typeof searchKinds)[number];

const kindList = `(${searchKinds.join('|')})`;

export const SearchQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    q: Type.String({
      minLength: 1,
      maxLength: 1000,
      pattern: '\\S',
      description: 'web-search syntax: words, "quoted phrases", -excluded, or',
    }),
    space_id: Type.Optional(Uuid),
    kinds: Type.Optional(
      Type.String({
        pattern: `^${kindList}(,${kindList})*$`,
        description: `comma-separated subset of ${searchKinds.join(', ')} (default all); may also be repeated`,
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
});

export const SearchResult = Type.Object({
  items: Type.Array(SearchHit),
  total: Type.Integer({ minimum: 0 }),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
