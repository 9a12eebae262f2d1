// The link shortener card's schemas.
import { Type } from 'typebox';

export const CreateLink = Type.Object(
  {
    long_url: Type.String({
      minLength: 1,
      maxLength: 4096,
      pattern: '^https?://',
      description: 'An http(s) URL',
    }),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._~-]+$' })),
    title: Type.Optional(Type.String({ maxLength: 500 })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);
