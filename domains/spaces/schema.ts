import { type Static, Type } from 'typebox';
import { PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';

export const Space = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    description: Type.String(),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Space' },
);
export type Space = Static<typeof Space>;

const name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const description = Type.String({ maxLength: 10_000 });

export const CreateSpace = Type.Object(
  { name, description: Type.Optional(description) },
  { additionalProperties: false },
);
export type CreateSpace = Static<typeof CreateSpace>;

export const UpdateSpace = Type.Object(
  { name: Type.Optional(name), description: Type.Optional(description) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSpace = Static<typeof UpdateSpace>;

export const SpaceList = Paginated(Type.Ref('Space'));
export const SpaceListQuery = PageQuery;

export const DeleteSpaceQuery = Type.Object({
  cascade: Type.Boolean({ default: false, description: 'also delete everything in the space' }),
});
