import { type Static, Type } from 'typebox';
import { NullableTimestamp, Offset, PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';
import { NullableIconRef } from '../icons/icon-ref.ts';

export const serviceStates = ['up', 'down', 'degraded', 'warning', 'pending', 'unknown', 'paused'] as const;
export type ServiceState = (typeof serviceStates)[number];
const State = Type.Enum(serviceStates);

/** What a service checks; each kind's fields are in definition.ts, its check in checks.ts. */
export const serviceKinds = ['http', 'tcp', 'ping', 'dns', 'tls', 'push'] as const;
export type ServiceKind = (typeof serviceKinds)[number];
const Kind = Type.Enum(serviceKinds);

export const dnsTypes = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'PTR', 'SRV'] as const;
export type DnsType = (typeof dnsTypes)[number];
export const httpMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof httpMethods)[number];

const JsonQuery = Type.Object(
  {
    pointer: Type.String({
      maxLength: 500,
      description: 'a JSON Pointer (RFC 6901) into the answer, e.g. /status',
    }),
    expected: Type.String({ maxLength: 500, description: 'the value there, compared as a string' }),
  },
  { additionalProperties: false },
);
const Certificate = Type.Object({
  subject: Type.String(),
  issuer: Type.String(),
  not_after: Timestamp,
  days_left: Type.Integer({ description: 'whole days until not_after; negative once expired' }),
  verified: Type.Boolean({ description: 'whether the chain verifies and names the host' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it does not verify' }),
});
export const Details = Type.Union(
  [
    Type.Object({
      packets: Type.Optional(Type.Integer({ description: 'ping: echo requests sent' })),
      received: Type.Optional(Type.Integer({ description: 'ping: replies received' })),
      loss_pct: Type.Optional(Type.Number({ description: 'ping: packets lost, in per cent' })),
      rcode: Type.Optional(
        Type.String({ description: 'dns: the answer code (NOERROR, NXDOMAIN, SERVFAIL ...)' }),
      ),
      answers: Type.Optional(Type.Array(Type.String(), { description: 'dns: the answers, as text' })),
      certificate: Type.Optional(Certificate),
    }),
    Type.Null(),
  ],
  {
    description:
      'what the last check found beyond pass or fail: ping packets, DNS answers, the TLS certificate',
  },
);
export type Details = Exclude<Static<typeof Details>, null>;
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);
const Percent = Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], {
  description: 'share of checks that passed, in per cent; null without checks in the period',
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
    method: Type.String(),
    headers: Type.Object(
      { set: Type.Boolean(), names: Type.Array(Type.String()) },
      { description: 'the request headers the check sends (write-only: only their names are shown)' },
    ),
    body: NullableString,
    json_query: Type.Union([JsonQuery, Type.Null()]),
    packets: NullableInteger,
    dns_name: NullableString,
    dns_type: NullableString,
    expect: NullableString,
    warn_days: NullableInteger,
    slow_ms: NullableInteger,
    details: Details,
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
    target: Type.String({
      description:
        'http: scheme://host:port/path; tcp: tcp://host:port; ping: ping://host; dns: dns://host:port/name/TYPE; ' +
        'tls: tls://host:port',
    }),
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
  host: Type.Union([text(253), Type.Null()], {
    description: 'required for tcp, ping, dns (the resolver asked) and tls checks',
  }),
  port: Type.Union([Type.Integer(), Type.Null()], {
    description: 'required for a tcp check; dns defaults to 53, tls to 443',
  }),
  status_min: Type.Integer({ minimum: 100, maximum: 599 }),
  status_max: Type.Integer({ minimum: 100, maximum: 599 }),
  keyword: Nullable(Type.String({ minLength: 1, maxLength: 500 })),
  method: Type.Enum(httpMethods, { description: 'http: the request method (default GET)' }),
  headers: Type.Union(
    [
      Type.Record(
        Type.String({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$" }),
        Type.String({ maxLength: 4000 }),
        {
          maxProperties: 50,
        },
      ),
      Type.Null(),
    ],
    {
      description:
        'http: request headers sent with the check, never shown again (only their names); null removes them',
    },
  ),
  body: Type.Union([Type.String({ maxLength: 100_000 }), Type.Null()], {
    description: 'http: the request body',
  }),
  json_query: Type.Union([JsonQuery, Type.Null()], {
    description: 'http: up only when the JSON answer holds `expected` at `pointer`',
  }),
  packets: Type.Union([Type.Integer({ minimum: 1, maximum: 10 }), Type.Null()], {
    description: 'ping: echo requests per check (default 3)',
  }),
  dns_name: Type.Union([text(253), Type.Null()], { description: 'dns: the name asked for (required)' }),
  dns_type: Type.Union([Type.Enum(dnsTypes), Type.Null()], {
    description: 'dns: the record type asked for (default A)',
  }),
  expect: Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()], {
    description: 'dns: up only when one answer equals this (MX "10 mail.example.com", SRV "0 5 443 host")',
  }),
  warn_days: Type.Union([Type.Integer({ minimum: 1, maximum: 365 }), Type.Null()], {
    description: 'tls: state warning when fewer days than this remain (default 14)',
  }),
  slow_ms: Type.Union([Type.Integer({ minimum: 1, maximum: 120_000 }), Type.Null()], {
    description: 'any kind: a check that passes slower than this makes the service degraded',
  }),
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

export const UpdateService = Type.Partial(Type.Object(serviceFields), {
  $id: 'ServiceChange',
  additionalProperties: false,
  minProperties: 1,
});
export type UpdateService = Static<typeof UpdateService>;
/**
 * The same fields with a name and a kind: written as the change plus what a new service must have, so the OpenAPI
 * document names the fields once (ServiceChange) for the add, replace and change routes.
 */
export const CreateService = Type.Intersect(
  [Type.Ref('ServiceChange'), Type.Object({ name: serviceFields.name, kind: serviceFields.kind })],
  { $id: 'ServiceInput' },
);
export type CreateService = UpdateService & Pick<Required<UpdateService>, 'name' | 'kind'>;

export const ServiceGroups = Type.Object({
  groups: Type.Array(
    Type.Object({
      category: Type.String(),
      healthy: Type.Integer({ description: 'enabled services that are up (degraded and warning included)' }),
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
  details: Details,
});

export const History = Type.Object({
  service_id: Uuid,
  checks: Type.Array(CheckResult, { description: 'newest first' }),
  uptime: Type.Object({ '24h': Percent, '7d': Percent, '30d': Percent }),
  log: Type.Array(Type.Object({ at: Timestamp, message: Type.String() }), {
    description: "a push service's log pings (/api/ping/:token/log), newest first, the last 100 kept",
  }),
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
export const PauseRequest = Type.Object(
  {
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'kept with the event' })),
  },
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
export const PurgePayload = Type.Object({}, { additionalProperties: false });

export const healthCheckTask = defineTask({
  name: 'health.check',
  payload: HealthCheckPayload,
  description:
    'Checks monitored services (the named ones, every enabled one, or those due), records results and state changes, and sends alerts',
  maxAttempts: 1,
});

export const healthPurgeTask = defineTask({
  name: 'health.purge',
  payload: PurgePayload,
  description: 'Deletes health-check results older than the health.retention_days setting',
});

export const discoverLanTask = defineTask({
  name: 'discover.lan',
  payload: DiscoverPayload,
  description:
    'Sweeps DISCOVERY_CIDRS on DISCOVERY_PORTS and stores what answers as disabled service candidates',
  maxAttempts: 2,
});
