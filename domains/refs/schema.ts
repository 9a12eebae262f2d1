import { type Static, Type } from 'typebox';
import { CreateSpaceId, PageQuery, Paginated, Patch, Timestamp, Uuid, WebUrl } from '../../lib/schemas.ts';
import { TagFilter, Tags, TagsInput } from '../../lib/tags.ts';

export const Ref = Type.Object(
  {
    id: Uuid,
    space_id: Uuid,
    source: Type.String(),
    external_id: Type.String(),
    url: Type.Union([Type.String(), Type.Null()]),
    title: Type.String(),
    notes: Type.String(),
    tags: Tags,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Ref' },
);

const source = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  description: 'where the reference comes from (github, arxiv, bookmarks...)',
});
const externalId = Type.String({ minLength: 1, maxLength: 500, description: 'its identity in that source' });
const url = Type.Union([WebUrl(8192), Type.Null()]);
const title = Type.String({ maxLength: 1000 });
const notes = Type.String({ maxLength: 200_000 });

/** Create and upsert take the same body: the external identity names the ref. */
export const CreateRef = Type.Object(
  {
    space_id: CreateSpaceId,
    source,
    external_id: externalId,
    url: Type.Optional(url),
    title: Type.Optional(title),
    notes: Type.Optional(notes),
    tags: Type.Optional(TagsInput),
  },
  { additionalProperties: false },
);
export type CreateRef = Static<typeof CreateRef>;

export const UpdateRef = Patch({ source, external_id: externalId, url, title, notes, tags: TagsInput });
export type UpdateRef = Static<typeof UpdateRef>;

export const RefList = Paginated(Type.Ref('Ref'));
export const RefListQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    space_id: Type.Optional(Uuid),
    source: Type.Optional(Type.String({ maxLength: 100 })),
    tag: Type.Optional(TagFilter),
  }),
]);
