// The tags in use and how many rows carry each.
import { type Static, Type } from 'typebox';
import { Uuid } from '../../lib/schemas.ts';

export const TagCount = Type.Object({
  tag: Type.String({ description: 'its most used spelling' }),
  count: Type.Integer({
    minimum: 1,
    description: 'pages, references, captured documents and apps carrying it',
  }),
});
export type TagCount = Static<typeof TagCount>;

export const TagList = Type.Object({ items: Type.Array(TagCount) });

export const TagListQuery = Type.Object({
  space_id: Type.Optional(Uuid),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 200 }),
});
