import { type Static, Type } from 'typebox';
import {
  CreateSpaceId,
  DateInput,
  PageQuery,
  Paginated,
  Patch,
  Timestamp,
  Uuid,
  WebUrl,
} from '../../lib/schemas.ts';
import { TagFilter, Tags, TagsInput } from '../../lib/tags.ts';

export const SourceDocOrigin = Type.Enum(['url', 'upload', 'webhook', 'video']);

const common = {
  id: Uuid,
  space_id: Uuid,
  url: Type.Union([Type.String(), Type.Null()]),
  title: Type.String(),
  content_type: Type.String(),
  origin: SourceDocOrigin,
  captured_at: Timestamp,
  metadata: Type.Record(Type.String(), Type.Unknown()),
  tags: Type.Unsafe<string[]>({ ...Tags, description: 'Kept as metadata.tags' }),
  read_at: Type.Union([Timestamp, Type.Null()], {
    description: 'When the owner read it (opened it, or marked it read); null: unread',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const SourceDoc = Type.Object({ ...common, content: Type.String() }, { $id: 'SourceDoc' });

/** A list entry: the content is left out (it can be large); its length in characters is given. */
export const SourceDocSummary = Type.Object({ ...common, content_length: Type.Integer({ minimum: 0 }) });

const url = Type.Union([WebUrl(8192), Type.Null()]);
const title = Type.String({ maxLength: 1000 });
const content = Type.String({ maxLength: 1_900_000 });
const contentType = Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\w.+-]+/[\\w.+-]+' });
const metadata = Type.Record(Type.String(), Type.Unknown(), { maxProperties: 200 });

export const CreateSourceDoc = Type.Object(
  {
    space_id: CreateSpaceId,
    url: Type.Optional(url),
    title: Type.Optional(title),
    content: Type.Optional(content),
    content_type: Type.Optional(contentType),
    origin: Type.Optional(SourceDocOrigin),
    captured_at: Type.Optional(DateInput),
    metadata: Type.Optional(metadata),
    tags: Type.Optional(TagsInput),
  },
  { additionalProperties: false },
);
export type CreateSourceDoc = Static<typeof CreateSourceDoc>;

export const UpdateSourceDoc = Patch({
  url,
  title,
  content,
  content_type: contentType,
  metadata,
  tags: TagsInput,
  read: Type.Boolean({
    description: 'true marks it read (a read one keeps its time); false marks it unread',
  }),
});
export type UpdateSourceDoc = Static<typeof UpdateSourceDoc>;

export const SourceDocList = Paginated(SourceDocSummary);
export const SourceDocListQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    space_id: Type.Optional(Uuid),
    origin: Type.Optional(SourceDocOrigin),
    tag: Type.Optional(TagFilter),
    unread: Type.Optional(Type.Boolean({ description: 'true: only the documents not read yet' })),
  }),
]);
