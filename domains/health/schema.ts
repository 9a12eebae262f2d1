import { type Static, Type } from 'typebox';
import { NullableTimestamp, Offset, PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';
import { NullableIconRef } from '../icons/icon-ref.ts';

export const serviceStates = ['up', 'down', 'pending', 'unknown'] as const;
export type ServiceState = (typeof serviceStates)[number];
const State = Type.Union([
  Type.Literal('up'),
  Type.Literal('down'),
  Type.Literal('pending'),
  Type.Literal('unknown'),
]);
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);
const Percent = Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
  description: 'share of checks that passed, in per cent; null without checks in the period',
});

const Kind = Type.Union([Type.Literal('http'), Type.Literal('tcp'), Type.Literal('push')], {
  description: 'http and tcp are checked by the hub; push is checked by the heartbeats it sends',
});

export const Service = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    category: Type.String(),
    kind: Kind,
    url: NullableString,
    host: NullableString,
    port: NullableInteger,
    status_min: Type.Integer(),
    status_max: Type.Integer(),
    keyword: NullableString,
    follow_redirects: Type.Boolean(),
    verify_tls: Type.Boolean(),
    basic_auth: Type.Object(
      { set: Type.Boolean() },
      { description: 'whether the check sends basic-auth credentials (write-only: they are never shown)' },
    ),
    interval_s: Type.Integer(),
    grace_s: Type.Integer(),
    push_token: Type.Union([Type.String(), Type.Null()], {
      description:
        'push: the heartbeat token, shown only in the answer that makes it (creating the service, or POST ' +
        '.../push-token); null elsewhere. Heartbeats go to /api/push/<token> or /api/ping/<token>.',
    }),
    last_push_at: Type.Union([Timestamp, Type.Null()], { description: 'push: the last heartbeat' }),
    push_started_at: Type.Union([Timestamp, Type.Null()], {
      description: 'push: a start waiting for its finish (healthchecks.io /start)',
    }),
    timeout_ms: Type.Integer(),
    retries: Type.Integer(),
    enabled: Type.Boolean(),
    external: Type.Boolean(),
    icon: NullableString,
    icon_url: NullableString,
    link: NullableString,
    device_mac: NullableString,
    resource_id: Type.Union([Uuid, Type.Null()]),
    host_check: Type.Boolean(),
    discovered: Type.Boolean(),
    notes: NullableString,
    target: Type.String({ description: 'http: scheme://host:port/path; tcp: tcp://host:port' }),
    state: State,
    latency_ms: NullableInteger,
    checked_at: NullableTimestamp,
    since: Type.Union([Timestamp, Type.Null()], { description: 'when the state last changed' }),
    message: NullableString,
    uptime_24h: Percent,
    suppressed_by: Type.Union([Uuid, Type.Null()], {
      description:
        'while down: the service whose outage alert covers this one (what it runs on, or depends on, is down)',
    }),
    maintenance: Type.Union(
      [Type.Object({ id: Uuid, title: Type.String(), ends_at: Timestamp }), Type.Null()],
      { description: 'the maintenance window on now for this service, where one is' },
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Service' },
);
export type Service = Static<typeof Service>;

const text = (maxLength: number) => Type.String({ maxLength });

/** The fields an owner writes; `kind` decides which check fields apply. */
export const serviceFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  category: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  kind: Kind,
  url: Type.Union([text(2000), Type.Null()], {
    description: 'The address checked; required for an http check',
  }),
  host: Type.Union([text(253), Type.Null()], { description: 'required for a tcp check' }),
  port: Type.Union([Type.Integer(), Type.Null()], { description: 'required for a tcp check' }),
  status_min: Type.Integer({ minimum: 100, maximum: 599 }),
  status_max: Type.Integer({ minimum: 100, maximum: 599 }),
  keyword: Nullable(Type.String({ minLength: 1, maxLength: 500 })),
  follow_redirects: Type.Boolean({
    description: 'follow up to 5 redirects (default true); off, a 3xx answer is judged by the status range',
  }),
  verify_tls: Type.Boolean({ description: 'TLS certificate verification; turn off only for this service' }),
  basic_auth: Type.Union(
    [
      Type.Object(
        { username: Type.String({ maxLength: 200 }), password: Type.String({ maxLength: 1000 }) },
        { additionalProperties: false },
      ),
      Type.Null(),
    ],
    {
      description:
        "http checks: credentials sent as basic auth to the URL's origin, never shown again; null removes them. " +
        'Credentials written into url (https://user:pass@host/) are taken out of it and kept here instead.',
    },
  ),
  interval_s: Type.Integer({ minimum: 10, maximum: 86_400 }),
  grace_s: Type.Integer({
    minimum: 0,
    maximum: 604_800,
    description:
      'push: a heartbeat later than interval_s plus this, or a finish later than this after a start, is down',
  }),
  timeout_ms: Type.Integer({ minimum: 100, maximum: 120_000 }),
  retries: Type.Integer({ minimum: 0, maximum: 20 }),
  enabled: Type.Boolean(),
  external: Type.Boolean(),
  icon: NullableIconRef,
  link: Nullable(text(2000)),
  device_mac: Nullable(text(40)),
  notes: Nullable(text(10_000)),
  resource_id: Type.Union([Uuid, Type.Null()], {
    description:
      'the resource it runs on: its outages fold into those of the resource and of what the resource depends on',
  }),
  host_check: Type.Boolean({
    description:
      'this service is the check of what it runs on (its resource, else its device_mac): while it is down, that is ' +
      'down, and the alerts of the services on it are folded into one',
  }),
};

export const CreateService = Type.Object(
  {
    name: serviceFields.name,
    kind: serviceFields.kind,
    category: Type.Optional(serviceFields.category),
    url: Type.Optional(serviceFields.url),
    host: Type.Optional(serviceFields.host),
    port: Type.Optional(serviceFields.port),
    status_min: Type.Optional(serviceFields.status_min),
    status_max: Type.Optional(serviceFields.status_max),
    keyword: Type.Optional(serviceFields.keyword),
    follow_redirects: Type.Optional(serviceFields.follow_redirects),
    verify_tls: Type.Optional(serviceFields.verify_tls),
    basic_auth: Type.Optional(serviceFields.basic_auth),
    interval_s: Type.Optional(serviceFields.interval_s),
    grace_s: Type.Optional(serviceFields.grace_s),
    timeout_ms: Type.Optional(serviceFields.timeout_ms),
    retries: Type.Optional(serviceFields.retries),
    enabled: Type.Optional(serviceFields.enabled),
    external: Type.Optional(serviceFields.external),
    icon: Type.Optional(serviceFields.icon),
    link: Type.Optional(serviceFields.link),
    device_mac: Type.Optional(serviceFields.device_mac),
    notes: Type.Optional(serviceFields.notes),
    resource_id: Type.Optional(serviceFields.resource_id),
    host_check: Type.Optional(serviceFields.host_check),
  },
  { additionalProperties: false },
);
export type CreateService = Static<typeof CreateService>;
export const UpdateService = Type.Partial(Type.Object(serviceFields), {
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateService = Static<typeof UpdateService>;

export const ServiceGroups = Type.Object({
  groups: Type.Array(
    Type.Object({
      category: Type.String(),
      healthy: Type.Integer({ description: 'enabled services that are up' }),
      total: Type.Integer({ description: 'enabled services' }),
      services: Type.Array(Type.Ref('Service')),
    }),
  ),
});

export const ServiceGroupsQuery = Type.Object({
  category: Type.Optional(Type.String({ maxLength: 100 })),
  include_disabled: Type.Boolean({ default: true }),
});

export const HistoryQuery = Type.Object({
  since: Type.Optional(Type.String({ format: 'date-time' })),
  limit: Type.Integer({ minimum: 1, maximum: 5000, default: 500 }),
  offset: Offset,
});

export const CheckResult = Type.Object({
  checked_at: Timestamp,
  ok: Type.Boolean(),
  state: State,
  latency_ms: NullableInteger,
  message: NullableString,
});

export const History = Type.Object({
  service_id: Uuid,
  checks: Type.Array(CheckResult, { description: 'newest first' }),
  uptime: Type.Object({ '24h': Percent, '7d': Percent, '30d': Percent }),
});

export const HealthEvent = Type.Object({
  id: Uuid,
  service_id: Type.Union([Uuid, Type.Null()]),
  service_name: Type.String(),
  from_state: State,
  to_state: State,
  message: NullableString,
  suppressed_by: Type.Union([Uuid, Type.Null()], {
    description: 'the root service whose outage alert this change was folded into (no alert of its own)',
  }),
  maintenance_id: Type.Union([Uuid, Type.Null()], {
    description: 'the maintenance window on when it happened (no alert)',
  }),
  at: Timestamp,
});
export const EventList = Paginated(HealthEvent);
export const EventQuery = Type.Intersect([PageQuery, Type.Object({ service_id: Type.Optional(Uuid) })]);

export const CheckRequest = Type.Object(
  { ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: 1000 })) },
  { additionalProperties: false },
);
export const Accepted = Type.Object({ job_id: Type.String(), task: Type.String() });

export const Candidate = Type.Intersect([
  Type.Ref('Service'),
  Type.Object({
    device_name: Type.Union([Type.String(), Type.Null()], {
      description: 'the known LAN device at this address, where there is one',
    }),
    display_name: Type.String({ description: 'the device name with the port, or host:port' }),
  }),
]);
export const CandidateList = Type.Object({ items: Type.Array(Candidate), total: Type.Integer() });

export const Promote = Type.Object(
  {
    name: Type.Optional(serviceFields.name),
    category: Type.Optional(serviceFields.category),
    icon: Type.Optional(serviceFields.icon),
  },
  { additionalProperties: false },
);

export const HealthCheckPayload = Type.Object(
  {
    ids: Type.Optional(Type.Array(Uuid)),
    due: Type.Optional(
      Type.Boolean({ description: 'only services whose interval has passed (the recurring run)' }),
    ),
  },
  { additionalProperties: false },
);
export type HealthCheckPayload = Static<typeof HealthCheckPayload>;
export const DiscoverPayload = Type.Object({}, { additionalProperties: false });

export const healthCheckTask = defineTask({
  name: 'health.check',
  payload: HealthCheckPayload,
  description:
    'Checks monitored services (the named ones, every enabled one, or those due), records results and state changes, and sends alerts',
  maxAttempts: 1,
});

export const discoverLanTask = defineTask({
  name: 'discover.lan',
  payload: DiscoverPayload,
  description:
    'Sweeps DISCOVERY_CIDRS on DISCOVERY_PORTS and stores what answers as disabled service candidates',
  maxAttempts: 2,
});
