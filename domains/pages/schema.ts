import { type Static, Type } from 'typebox';
import { CreateSpaceId, PageQuery, Paginated, Patch, Timestamp, Uuid } from '../../lib/schemas.ts';
import { TagFilter, Tags, TagsInput } from '../../lib/tags.ts';

const NullableUuid = Type.Union([Uuid, Type.Null()]);

export const Page = Type.Object(
  {
    id: Uuid,
    space_id: Uuid,
    parent_id: NullableUuid,
    position: Type.Integer({ minimum: 0 }),
    title: Type.String(),
    body: Type.String({ description: 'Markdown' }),
    tags: Tags,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Page' },
);
export type Page = Static<typeof Page>;

const title = Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' });
const body = Type.String({ maxLength: 1_000_000, description: 'Markdown' });
const position = Type.Integer({
  minimum: 0,
  description: 'place among the siblings; past the end means last',
});

export const CreatePage = Type.Object(
  {
    space_id: CreateSpaceId,
    parent_id: Type.Optional(NullableUuid),
    position: Type.Optional(position),
    title,
    body: Type.Optional(body),
    tags: Type.Optional(TagsInput),
  },
  { additionalProperties: false },
);
export type CreatePage = Static<typeof CreatePage>;

export const UpdatePage = Patch({ parent_id: NullableUuid, position, title, body, tags: TagsInput });
export type UpdatePage = Static<typeof UpdatePage>;

export const PageList = Paginated(Type.Ref('Page'));
export const PageListQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    space_id: Type.Optional(Uuid),
    parent_id: Type.Optional(Uuid),
    tag: Type.Optional(TagFilter),
  }),
]);

/** A page in a space listing: no body; `children` in tree mode, `depth` in flat mode. */
export const PageNode = Type.Cyclic(
  {
    PageNode: Type.Object({
      id: Uuid,
      space_id: Uuid,
      parent_id: NullableUuid,
      position: Type.Integer(),
      title: Type.String(),
      depth: Type.Integer({ minimum: 0 }),
      created_at: Timestamp,
      updated_at: Timestamp,
      children: Type.Optional(Type.Array(Type.Ref('PageNode'))),
    }),
  },
  'PageNode',
);

export const SpacePagesQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    tree: Type.Boolean({
      default: false,
      description: 'nest children under their parents; limit and offset then apply to the top level',
    }),
  }),
]);
export const SpacePages = Paginated(PageNode);

/** The pages linking to a page with `[[its title]]`, in title order (no bodies). */
export const PageBacklinks = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Uuid,
      space_id: Uuid,
      parent_id: NullableUuid,
      position: Type.Integer(),
      title: Type.String(),
      created_at: Timestamp,
      updated_at: Timestamp,
    }),
  ),
});
