// The tags in use and how many rows carry each.
import { type Static, Type } from 'typebox';
import { PageQuery, Paginated, Uuid } from '../../lib/schemas.ts';

export const TagCount = Type.Object({
  tag: Type.String({ description: 'its most used spelling' }),
  count: Type.Integer({
    minimum: 1,
    description: 'pages, references, captured documents and apps carrying it',
  }),
});
export type TagCount = Static<typeof TagCount>;

export const TagList = Paginated(TagCount);

export const TagListQuery = Type.Intersect([PageQuery, Type.Object({ space_id: Type.Optional(Uuid) })]);
