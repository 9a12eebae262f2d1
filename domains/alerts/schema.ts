// The alerts' shapes: targets (each kind's fields as the owner sends them, secrets among them; shown with secrets
// only as { set }), rules, deliveries, the `alerts` setting and the tasks.
import { type Static, type TObject, Type } from 'typebox';
import { PageQuery, Paginated, Patch, Timestamp, Uuid, WebUrl } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

export const targetKinds = ['ntfy', 'gotify', 'webhook', 'apprise', 'email'] as const;
export type TargetKind = (typeof targetKinds)[number];

/** A secret as the owner sends it: a value to store, null to clear it, or left out to keep what is stored. */
function Secret(description: string, pattern = '^\\S+$') {
  return Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 4096, pattern }), Type.Null()], {
      description: `${description} (write-only: left out keeps the stored one, null clears it)`,
    }),
  );
}

const Url = (description: string) => ({ ...WebUrl(2048), description });
const Address = Type.String({ format: 'email', maxLength: 320 });

interface KindDefinition<Fields extends TObject = TObject> {
  title: string;
  fields: Fields;
  /** Fields holding secrets: stored sealed, shown as { set }. */
  secrets: readonly string[];
  /** Secrets the kind cannot work without. */
  requiredSecrets: readonly string[];
}

function kind<Fields extends TObject>(definition: KindDefinition<Fields>): KindDefinition<Fields> {
  return definition;
}

export const kinds = {
  ntfy: kind({
    title: 'ntfy',
    fields: Type.Object(
      {
        url: Url('the ntfy server, e.g. https://ntfy.sh'),
        topic: Type.String({ pattern: '^[-_A-Za-z0-9]{1,64}$', description: 'the topic to publish to' }),
        token: Secret('an access token (tk_...)'),
      },
      { additionalProperties: false },
    ),
    secrets: ['token'],
    requiredSecrets: [],
  }),
  gotify: kind({
    title: 'Gotify',
    fields: Type.Object(
      {
        url: Url('the Gotify server, e.g. https://gotify.lan'),
        token: Secret("an application's token"),
      },
      { additionalProperties: false },
    ),
    secrets: ['token'],
    requiredSecrets: ['token'],
  }),
  webhook: kind({
    title: 'Webhook (Standard Webhooks)',
    fields: Type.Object(
      {
        url: Url('where the JSON body is POSTed'),
        secret: Secret(
          'the signing secret in its whsec_ base64 form; without one the body goes unsigned',
          '^whsec_[A-Za-z0-9+/]+={0,2}$',
        ),
      },
      { additionalProperties: false },
    ),
    secrets: ['secret'],
    requiredSecrets: [],
  }),
  apprise: kind({
    title: 'Apprise API',
    fields: Type.Object(
      {
        url: Url('the apprise-api server, e.g. http://apprise.lan:8000'),
        key: Type.Optional(
          Type.Union([Type.String({ pattern: '^[-_A-Za-z0-9]{1,128}$' }), Type.Null()], {
            description: 'a configuration key stored in apprise-api (POST /notify/{key})',
          }),
        ),
        urls: Secret('Apprise URLs, space or comma separated (they carry the services\u2019 tokens)', '\\S'),
      },
      { additionalProperties: false },
    ),
    secrets: ['urls'],
    requiredSecrets: [],
  }),
  email: kind({
    title: 'E-mail (SMTP)',
    fields: Type.Object(
      {
        host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[-.:A-Za-z0-9\\[\\]]+$' }),
        port: Type.Integer({ minimum: 1, maximum: 65535 }),
        tls: Type.Union([Type.Literal('tls'), Type.Literal('starttls'), Type.Literal('none')], {
          description:
            'tls: TLS from the start (465); starttls: upgrade required (587); none: plain (LAN relays)',
        }),
        user: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 320 }), Type.Null()])),
        password: Secret('the SMTP password', '^[^\\r\\n]+$'),
        from: Address,
        to: Type.Array(Address, { minItems: 1, maxItems: 20 }),
      },
      { additionalProperties: false },
    ),
    secrets: ['password'],
    requiredSecrets: [],
  }),
} as const satisfies Record<TargetKind, KindDefinition>;

export type KindFields<K extends TargetKind> = Static<(typeof kinds)[K]['fields']>;

const Name = Type.String({ minLength: 1, maxLength: 200 });

function TargetBody<const K extends TargetKind>(k: K) {
  return Type.Object(
    { name: Name, kind: Type.Literal(k), enabled: Type.Optional(Type.Boolean()), fields: kinds[k].fields },
    { additionalProperties: false },
  );
}

export const CreateTarget = Type.Union([
  TargetBody('ntfy'),
  TargetBody('gotify'),
  TargetBody('webhook'),
  TargetBody('apprise'),
  TargetBody('email'),
]);
export type CreateTarget = {
  name: string;
  kind: TargetKind;
  enabled?: boolean;
  fields: Record<string, unknown>;
};

export const UpdateTarget = Patch({
  name: Name,
  enabled: Type.Boolean(),
  fields: Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        "some of the kind's fields: those left out keep their values (secrets too); null clears one",
    },
  ),
});
export type UpdateTarget = Static<typeof UpdateTarget>;

export const Target = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    kind: Type.Enum([...targetKinds, 'json'], {
      type: 'string',
      description: 'json only for the environment target with ALERT_FORMAT=json',
    }),
    enabled: Type.Boolean(),
    source: Type.Union([Type.Literal('settings'), Type.Literal('environment')], {
      description: 'environment: ALERT_URL, changed there only',
    }),
    fields: Type.Record(Type.String(), Type.Unknown(), { description: 'secrets only as { set }' }),
    created_at: Type.Union([Timestamp, Type.Null()]),
    updated_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'AlertTarget' },
);
export type Target = Static<typeof Target>;

export const TargetList = Type.Object({ items: Type.Array(Type.Ref('AlertTarget')) });

export const TestAnswer = Type.Object({
  ok: Type.Boolean(),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: "the upstream's HTTP status or SMTP reply code; null when no answer came",
  }),
  answer: Type.String({ description: 'what the upstream answered, or why nothing came' }),
});
export type TestAnswer = Static<typeof TestAnswer>;

// Rules.

const EventPattern = Type.String({
  pattern: '^[a-z0-9_*]+(\\.[a-z0-9_*]+)*$',
  maxLength: 100,
  description: 'a dotted event name; * matches anything (service.*, *)',
});
const Clock = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: 'HH:MM' });

export const RuleFilter = Type.Object(
  {
    service_ids: Type.Optional(Type.Array(Uuid, { maxItems: 500 })),
    categories: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    min_priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  },
  { additionalProperties: false },
);
export type RuleFilter = Static<typeof RuleFilter>;

export const QuietHours = Type.Object(
  {
    from: Clock,
    to: Clock,
    timezone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'an IANA time zone, e.g. Europe/Berlin',
    }),
    except_priority_at_least: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  },
  { additionalProperties: false },
);
export type QuietHours = Static<typeof QuietHours>;

const ruleFields = {
  name: Type.String({ maxLength: 200 }),
  events: Type.Array(EventPattern, { minItems: 1, maxItems: 50 }),
  filter: RuleFilter,
  targets: Type.Array(Uuid, { maxItems: 100, description: 'target ids; empty: every target' }),
  repeat_minutes: Type.Union([Type.Integer({ minimum: 1, maximum: 10080 }), Type.Null()], {
    description: 'an unresolved problem (service.down ...) is sent again at this interval until it resolves',
  }),
  quiet_hours: Type.Union([QuietHours, Type.Null()], {
    description: 'nothing is sent in this daily window, except at or above the given priority',
  }),
  enabled: Type.Boolean(),
};

export const CreateRule = Type.Object(
  {
    name: Type.Optional(ruleFields.name),
    events: ruleFields.events,
    filter: Type.Optional(ruleFields.filter),
    targets: ruleFields.targets,
    repeat_minutes: Type.Optional(ruleFields.repeat_minutes),
    quiet_hours: Type.Optional(ruleFields.quiet_hours),
    enabled: Type.Optional(ruleFields.enabled),
  },
  { additionalProperties: false },
);
export type CreateRule = Static<typeof CreateRule>;
export const UpdateRule = Patch(ruleFields);
export type UpdateRule = Static<typeof UpdateRule>;

export const Rule = Type.Object(
  {
    id: Uuid,
    ...ruleFields,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'AlertRule' },
);
export type Rule = Static<typeof Rule>;
export const RuleList = Type.Object({ items: Type.Array(Type.Ref('AlertRule')) });

// Deliveries.

export const deliveryStatuses = ['queued', 'retrying', 'sent', 'failed', 'quiet'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const Delivery = Type.Object(
  {
    id: Uuid,
    alert_id: Uuid,
    event: Type.String(),
    title: Type.String(),
    priority: Type.Integer(),
    rule_id: Type.Union([Uuid, Type.Null()]),
    target_id: Type.Union([Uuid, Type.Null()], { description: 'null once the target is deleted' }),
    target_name: Type.String(),
    target_kind: Type.String(),
    repeat: Type.Integer({ description: '0 for the first sending, then 1, 2 ... for repeats' }),
    status: Type.Enum(deliveryStatuses, {
      type: 'string',
      description: 'quiet: held back by quiet hours, never sent',
    }),
    attempts: Type.Integer(),
    answer_status: Type.Union([Type.Integer(), Type.Null()]),
    answer: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
    sent_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'AlertDelivery' },
);
export type Delivery = Static<typeof Delivery>;

export const DeliveryQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.Enum(deliveryStatuses, { type: 'string' })),
  alert_id: Type.Optional(Uuid),
});
export const DeliveryList = Paginated(Type.Ref('AlertDelivery'));

// The setting.

const Percent = (description: string) => Type.Integer({ minimum: 1, maximum: 100, description });

export const AlertSettings = Type.Object(
  {
    web_url: Type.Union([WebUrl(2048), Type.Null()], {
      description:
        "the web app's address as the phone reaches it (https://hub.lan): alerts link into it (ntfy Click, Gotify " +
        'click, e-mail); null: no links',
    }),
    device_offline_minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_080,
        description: 'a watched device absent from scans this long raises device.offline (default 10)',
      }),
    ),
    host_cpu_percent: Type.Optional(Percent('CPU use of the host that raises host.threshold (default 90)')),
    host_memory_percent: Type.Optional(
      Percent('memory use of the host that raises host.threshold (default 90)'),
    ),
    host_disk_percent: Type.Optional(
      Percent('use of any HOST_MOUNTS disk that raises host.threshold (default 90)'),
    ),
    host_minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1440,
        description:
          'how long a host figure stays at or over its threshold before host.threshold (default 10)',
      }),
    ),
  },
  { additionalProperties: false },
);

// Tasks.

export type AlertSettings = Static<typeof AlertSettings>;

/** What the settings left out mean. */
export const alertDefaults = {
  device_offline_minutes: 10,
  host_cpu_percent: 90,
  host_memory_percent: 90,
  host_disk_percent: 90,
  host_minutes: 10,
} as const;

export const deliverTask = defineTask({
  name: 'alerts.deliver',
  payload: Type.Object({ delivery_id: Uuid }),
  description: "Sends one alert to one target and records the target's answer; retried with backoff",
  maxAttempts: 8,
});

export const repeatTask = defineTask({
  name: 'alerts.repeat',
  payload: Type.Object({}),
  description: 'Sends unresolved problems again where a rule asks for repeats',
  maxAttempts: 3,
});
