import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../../lib/schemas.ts';

export const slugPattern = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$';
const Slug = Type.String({
  pattern: slugPattern,
  maxLength: 64,
  description: 'the page’s address, /status/<slug>: lower-case letters, digits and inner hyphens',
});
const ServiceIds = Type.Array(Uuid, {
  maxItems: 200,
  uniqueItems: true,
  description: 'the monitored services shown, in this order',
});

const fields = {
  slug: Slug,
  title: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  description: Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]),
  services: ServiceIds,
  public: Type.Boolean({
    description: 'served to anyone at /status/<slug>; otherwise only the owner may see it (a preview)',
  }),
};

export const StatusPage = Type.Object({
  id: Uuid,
  ...fields,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type StatusPage = Static<typeof StatusPage>;

export const CreateStatusPage = Type.Object(
  {
    slug: fields.slug,
    title: fields.title,
    description: Type.Optional(fields.description),
    services: Type.Optional(fields.services),
    public: Type.Optional(fields.public),
  },
  { additionalProperties: false },
);
export type CreateStatusPage = Static<typeof CreateStatusPage>;

export const UpdateStatusPage = Type.Partial(Type.Object(fields), {
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateStatusPage = Static<typeof UpdateStatusPage>;

export const StatusPageList = Type.Object({ items: Type.Array(StatusPage), total: Type.Integer() });
export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 64 }) });

const Percent = Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
  description: 'share of checks that passed, in per cent; null without checks in the period',
});

/** What anyone may see of a listed service: never how it is checked (no address, URL, host, token or message). */
export const PublicService = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    state: Type.String({
      description: 'up, down, pending, unknown ...; paused when the owner turned it off',
    }),
    uptime_24h: Percent,
    uptime_30d: Percent,
    days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), uptime: Percent }), {
      description: 'the last 90 UTC days, oldest first, today last',
    }),
  },
  { additionalProperties: false },
);

export const PublicStatus = Type.Object(
  {
    slug: Type.String(),
    title: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    public: Type.Boolean({ description: 'false only in the owner’s preview of a page not yet public' }),
    state: Type.String({ description: 'up when every listed service is up, down when one is, else partial' }),
    services: Type.Array(PublicService),
    generated_at: Timestamp,
  },
  { additionalProperties: false },
);
export type PublicStatus = Static<typeof PublicStatus>;

export const BadgeParams = Type.Object({ service_id: Uuid });
export const UptimeBadgeQuery = Type.Object({
  window: Type.Union([Type.Literal('24h'), Type.Literal('7d'), Type.Literal('30d')], { default: '24h' }),
});
