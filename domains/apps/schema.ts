// Apps: the launcher's tiles. Each links somewhere (http or https only), sits in a named group at a position, and may
// follow a monitored service (its cached state is the tile's status dot) and a LAN device.
import { type Static, Type } from 'typebox';
import { PageQuery, Paginated, Patch, Timestamp, Uuid, WebUrl } from '../../lib/schemas.ts';
import { TagFilter, Tags, TagsInput } from '../../lib/tags.ts';
import { NullableIconRef } from '../icons/icon-ref.ts';

export const appStatuses = ['up', 'down', 'degraded', 'warning', 'pending', 'paused', 'unknown'] as const;
export type AppStatus = (typeof appStatuses)[number];

export const App = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    href: Type.String(),
    description: Type.String(),
    icon: Type.Union([Type.String(), Type.Null()], { description: 'an iconRef, or null' }),
    icon_url: Type.Union([Type.String(), Type.Null()], {
      description:
        'where the tile gets its picture: the iconRef rendered, else the site favicon found, else null',
    }),
    group: Type.String(),
    position: Type.Integer({ minimum: 0, description: 'place within its group, 0..n-1' }),
    service_id: Type.Union([Uuid, Type.Null()]),
    device_mac: Type.Union([Type.String(), Type.Null()]),
    tags: Tags,
    status: Type.Enum([...appStatuses], {
      description:
        "the linked service's cached state (up, down, degraded, warning, pending), paused when that service is disabled, unknown " +
        'without a service',
    }),
    latency_ms: Type.Union([Type.Integer(), Type.Null()]),
    container: Type.Union(
      [
        Type.Object({
          state: Type.String({
            description:
              "Docker's state (running, exited, paused, restarting, created, dead), or removed when the container is gone",
          }),
          health: Type.Union(
            [Type.Literal('healthy'), Type.Literal('unhealthy'), Type.Literal('starting'), Type.Null()],
            { description: "its health check's state; null without one" },
          ),
        }),
        Type.Null(),
      ],
      {
        description:
          'the Docker container it was promoted from (GET /api/apps/discovered); null for other apps',
      },
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'App' },
);
export type App = Static<typeof App>;

const name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const href = WebUrl(2048);
const description = Type.String({ maxLength: 1000 });
const group = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'default "Apps"' });
const position = Type.Integer({
  minimum: 0,
  maximum: 100_000,
  description: 'place within the group (clamped to its end); default last',
});
const serviceId = Type.Union([Uuid, Type.Null()], {
  description: 'a monitored service whose state the tile shows',
});
const deviceMac = Type.Union(
  [
    Type.String({
      maxLength: 40,
      pattern:
        '^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$|^[0-9A-Fa-f]{4}\\.[0-9A-Fa-f]{4}\\.[0-9A-Fa-f]{4}$|^[0-9A-Fa-f]{12}$',
    }),
    Type.Null(),
  ],
  {
    description:
      'a LAN device: its MAC address (aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF, aabb.ccdd.eeff or AABBCCDDEEFF)',
  },
);

export const CreateApp = Type.Object(
  {
    name,
    href,
    description: Type.Optional(description),
    icon: Type.Optional(NullableIconRef),
    group: Type.Optional(group),
    position: Type.Optional(position),
    service_id: Type.Optional(serviceId),
    device_mac: Type.Optional(deviceMac),
    tags: Type.Optional(TagsInput),
  },
  { additionalProperties: false },
);
export type CreateApp = Static<typeof CreateApp>;

export const UpdateApp = Patch({
  name,
  href,
  description,
  icon: NullableIconRef,
  group,
  position,
  service_id: serviceId,
  device_mac: deviceMac,
  tags: TagsInput,
});
export type UpdateApp = Static<typeof UpdateApp>;

export const AppListQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'name, description or link holds q' }),
    ),
    tag: Type.Optional(TagFilter),
  }),
]);
export type AppListQuery = Static<typeof AppListQuery>;

export const AppList = Paginated(Type.Ref('App'));

const yamlText = (file: string) =>
  Type.String({ maxLength: 1_000_000, description: `the text of Homepage's ${file}` });

export const HomepageImport = Type.Object(
  {
    services: Type.Optional(yamlText('services.yaml')),
    bookmarks: Type.Optional(yamlText('bookmarks.yaml')),
    widgets: Type.Optional(yamlText('widgets.yaml')),
    space_id: Type.Optional(Uuid),
    dry_run: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type HomepageImport = Static<typeof HomepageImport>;

const itemKinds = ['app', 'service', 'ref', 'setting', 'widget', 'icon'] as const;
const ImportedItem = Type.Object({
  kind: Type.Enum([...itemKinds]),
  name: Type.String(),
  group: Type.Optional(Type.String()),
});
const SkippedItem = Type.Object({
  kind: Type.Enum([...itemKinds]),
  name: Type.String(),
  group: Type.Optional(Type.String()),
  reason: Type.String(),
});
export type ImportedItem = Static<typeof ImportedItem>;

export const ImportReport = Type.Object({
  dry_run: Type.Boolean(),
  created: Type.Array(ImportedItem),
  updated: Type.Array(ImportedItem),
  skipped: Type.Array(SkippedItem),
});
export type ImportReport = Static<typeof ImportReport>;

export const FaviconLook = Type.Object(
  {
    found: Type.Boolean(),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'why none was found: each place tried' }),
    icon_url: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'FaviconLook' },
);
