// The integrations' shapes: each kind's fields as the owner sends them (secrets among them), the entry the API
// shows (secrets only as { set }), and a test's outcome.
import { type Static, type TObject, Type } from 'typebox';
import { Timestamp, WebUrl } from '../../lib/schemas.ts';

export const integrationKinds = [
  'weather',
  'proxmox',
  'shlink',
  'stt',
  'assistant',
  'linkding',
  'karakeep',
  'docker',
] as const;
export type IntegrationKind = (typeof integrationKinds)[number];

/** A secret as the owner sends it: a value to store, null to clear it, or left out to keep what is stored. */
function Secret(description: string) {
  return Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 4096, pattern: '^\\S+$' }), Type.Null()], {
      description: `${description} (write-only: left out keeps the stored one, null clears it; required when none is stored and the kind needs it)`,
    }),
  );
}

const Url = (description: string) => ({ ...WebUrl(2048), description });

/** A PEM text: a certificate, or (a secret) a private key. */
const Pem = (marker: string, description: string) =>
  Type.Optional(
    Type.Union([Type.String({ maxLength: 20_000, pattern: `-----BEGIN ${marker}-----` }), Type.Null()], {
      description,
    }),
  );

const Schedule = Type.String({
  pattern: '^[\\d*/,-]+( [\\d*/,-]+){4}$',
  maxLength: 100,
  description: 'a 5-field cron expression, e.g. */15 * * * *',
});

interface KindDefinition<Fields extends TObject = TObject> {
  fields: Fields;
  /** Fields holding secrets: stored sealed, shown as { set }. */
  secrets: readonly string[];
  /** Secrets the integration cannot work without. */
  requiredSecrets: readonly string[];
  title: string;
}

function kind<Fields extends TObject>(definition: KindDefinition<Fields>): KindDefinition<Fields> {
  return definition;
}

export const kinds = {
  weather: kind({
    title: 'Weather (Open-Meteo)',
    fields: Type.Object(
      {
        latitude: Type.Number({ minimum: -90, maximum: 90 }),
        longitude: Type.Number({ minimum: -180, maximum: 180 }),
        label: Type.Optional(Type.String({ maxLength: 100, description: "the place's name on the card" })),
        units: Type.Optional(Type.Union([Type.Literal('metric'), Type.Literal('imperial')])),
        timezone: Type.Optional(
          Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone or auto' }),
        ),
        url: Type.Optional(Url('the Open-Meteo base URL (default https://api.open-meteo.com)')),
      },
      { additionalProperties: false },
    ),
    secrets: [],
    requiredSecrets: [],
  }),
  proxmox: kind({
    title: 'Proxmox VE',
    fields: Type.Object(
      {
        url: Url('the Proxmox VE address, e.g. https://pve.lan:8006'),
        token_id: Type.String({
          pattern: '^[^@\\s]+@[^!\\s]+![^=\\s]+$',
          maxLength: 200,
          description: 'USER@REALM!TOKENID of a token with the PVEAuditor role',
        }),
        token_secret: Secret("the token's secret (a UUID)"),
        ca_certificate: Type.Optional(
          Type.Union(
            [Type.String({ maxLength: 20_000, pattern: '-----BEGIN CERTIFICATE-----' }), Type.Null()],
            {
              description: 'the PEM certificate that signs the Proxmox certificate (self-signed ones)',
            },
          ),
        ),
        tls_insecure: Type.Optional(Type.Boolean({ description: 'skip certificate verification' })),
      },
      { additionalProperties: false },
    ),
    secrets: ['token_secret'],
    requiredSecrets: ['token_secret'],
  }),
  shlink: kind({
    title: 'Shlink',
    fields: Type.Object(
      { url: Url('the Shlink server, e.g. https://s.example.com'), api_key: Secret('the API key') },
      { additionalProperties: false },
    ),
    secrets: ['api_key'],
    requiredSecrets: ['api_key'],
  }),
  stt: kind({
    title: 'Speech to text',
    fields: Type.Object(
      {
        provider: Type.Union([Type.Literal('openai'), Type.Literal('whispercpp')], {
          description: 'openai: an OpenAI-compatible server; whispercpp: whisper.cpp server',
        }),
        url: Url('the server, e.g. http://speaches.lan:8000'),
        model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'default whisper-1' })),
        api_key: Secret('the API key, when the server wants one'),
      },
      { additionalProperties: false },
    ),
    secrets: ['api_key'],
    requiredSecrets: [],
  }),
  assistant: kind({
    title: 'Assistant (OpenAI-compatible)',
    fields: Type.Object(
      {
        url: Url('the OpenAI-compatible API, e.g. http://ollama.lan:11434/v1'),
        model: Type.String({ minLength: 1, maxLength: 200 }),
        api_key: Secret('the API key, when the server wants one'),
      },
      { additionalProperties: false },
    ),
    secrets: ['api_key'],
    requiredSecrets: [],
  }),
  linkding: kind({
    title: 'linkding',
    fields: Type.Object(
      {
        url: Url('the linkding server, e.g. https://links.lan'),
        token: Secret('the REST API token'),
        schedule: Type.Optional(Schedule),
      },
      { additionalProperties: false },
    ),
    secrets: ['token'],
    requiredSecrets: ['token'],
  }),
  karakeep: kind({
    title: 'Karakeep webhook',
    fields: Type.Object(
      {
        webhook_secret: Type.Optional(
          Type.Union([Type.String({ minLength: 16, maxLength: 4096, pattern: '^\\S+$' }), Type.Null()], {
            description:
              'the token Karakeep sends (write-only: left out keeps the stored one, null clears it; required when none is stored); 16 characters or more',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    secrets: ['webhook_secret'],
    requiredSecrets: ['webhook_secret'],
  }),
  docker: kind({
    title: 'Docker',
    fields: Type.Object(
      {
        host: Type.String({
          maxLength: 500,
          pattern: '^(unix:///\\S+|(tcp|http|https)://[^\\s/@]+/?)$',
          description:
            'the Engine API: unix:///var/run/docker.sock, tcp://host:2375, or https://host:2376 (TLS; tcp:// with ' +
            'certificates speaks TLS too, as docker --tlsverify does)',
        }),
        ca_certificate: Pem('CERTIFICATE', "the CA that signs the daemon's certificate (ca.pem)"),
        client_certificate: Pem('CERTIFICATE', 'the client certificate the daemon asks for (cert.pem)'),
        client_key: Pem(
          '[A-Z ]*PRIVATE KEY',
          "the client certificate's key (key.pem; write-only: left out keeps the stored one, null clears it)",
        ),
      },
      { additionalProperties: false },
    ),
    secrets: ['client_key'],
    requiredSecrets: [],
  }),
} satisfies Record<IntegrationKind, KindDefinition>;

export type KindFields<K extends IntegrationKind> = Static<(typeof kinds)[K]['fields']>;

export const KindParams = Type.Object({
  kind: Type.Union(
    integrationKinds.map((name) => Type.Literal(name)),
    { description: integrationKinds.join(', ') },
  ),
});

export const SaveQuery = Type.Object({
  test: Type.Boolean({ default: true, description: 'false: store without trying the upstream first' }),
});

export const TestResult = Type.Object(
  {
    ok: Type.Boolean(),
    status: Type.Union([Type.Integer(), Type.Null()], {
      description: "the upstream's HTTP status; null when no answer came",
    }),
    message: Type.String(),
    latency_ms: Type.Integer({ minimum: 0 }),
    tested_at: Type.Optional(Timestamp),
  },
  { $id: 'IntegrationTest' },
);
export type TestResult = Static<typeof TestResult>;

export const Integration = Type.Object(
  {
    kind: Type.String({
      description: `${integrationKinds.join(', ')}, or alert-target (one per alert target)`,
    }),
    id: Type.Optional(Type.String({ format: 'uuid', description: "an alert-target entry's target id" })),
    title: Type.String(),
    configured: Type.Boolean(),
    source: Type.Union([Type.Literal('environment'), Type.Literal('settings'), Type.Null()]),
    /** The variables that set it, when the environment does. */
    variables: Type.Array(Type.String()),
    fields: Type.Record(Type.String(), Type.Unknown(), {
      description: 'every value but the secrets; each secret as { set: true | false }',
    }),
    secrets: Type.Array(Type.String(), { description: 'which fields are secrets' }),
    last_test: Type.Union([Type.Ref('IntegrationTest'), Type.Null()]),
    updated_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'Integration' },
);
export type Integration = Static<typeof Integration>;

export const IntegrationList = Type.Object({ items: Type.Array(Type.Ref('Integration')) });
