// Docker discovery's shapes: the `docker.sync` task, its schedule setting, and an app candidate as the API shows it.
import { type Static, Type } from 'typebox';
import { PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

export const dockerSyncTask = defineTask({
  name: 'docker.sync',
  payload: Type.Object(
    { trigger: Type.Optional(Type.Union([Type.Literal('manual'), Type.Literal('schedule')])) },
    { additionalProperties: false },
  ),
  description:
    "Reads the Docker Engine API's containers and keeps the app candidates their homepage.* and Traefik labels make, " +
    'with each container’s state and health (a promoted app is never changed)',
  maxAttempts: 3,
});

export const DockerSyncSettings = Type.Object(
  {
    enabled: Type.Boolean({ description: 'false stops the schedule; a run on demand still works' }),
    schedule: Type.String({
      minLength: 1,
      maxLength: 100,
      description: '5-field cron, in the hub’s local time',
    }),
  },
  { additionalProperties: false },
);
export type DockerSyncSettings = Static<typeof DockerSyncSettings>;

export const containerHealths = ['healthy', 'unhealthy', 'starting'] as const;

export const DiscoveredApp = Type.Object(
  {
    id: Uuid,
    key: Type.String({ description: 'compose:<project>/<service>, else container:<name>' }),
    container_id: Type.String(),
    container_name: Type.String(),
    image: Type.String(),
    source: Type.Union([Type.Literal('homepage'), Type.Literal('traefik')], {
      description: 'homepage: from homepage.* labels; traefik: from a router’s Host rule alone',
    }),
    name: Type.String(),
    href: Type.String(),
    description: Type.String(),
    group: Type.Union([Type.String(), Type.Null()]),
    icon: Type.Union([Type.String(), Type.Null()], {
      description: 'the homepage.icon label as an iconRef, or null',
    }),
    icon_url: Type.Union([Type.String(), Type.Null()]),
    state: Type.String(),
    health: Type.Union([Type.Enum([...containerHealths]), Type.Null()]),
    app_id: Type.Union([Uuid, Type.Null()], { description: 'the app it was promoted to' }),
    dismissed: Type.Boolean(),
    seen_at: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'DiscoveredApp' },
);
export type DiscoveredApp = Static<typeof DiscoveredApp>;

export const DiscoveredQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    dismissed: Type.Optional(
      Type.Boolean({ default: false, description: 'true: the dismissed candidates instead' }),
    ),
  }),
]);
export type DiscoveredQuery = Static<typeof DiscoveredQuery>;

export const DiscoveredList = Paginated(Type.Ref('DiscoveredApp'));
