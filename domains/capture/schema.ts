import { type Static, Type } from 'typebox';
import { PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';
import { SourceDoc, SourceDocOrigin } from '../source-docs/schema.ts';

export const CaptureBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4096, description: 'An http or https URL' }),
    idempotency_key: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '\\S',
      description: 'The same key again returns the first capture and queues nothing',
    }),
    space_id: Type.Optional({
      ...Uuid,
      description: 'Where the document goes; default: the "Inbox" space (or a scoped agent\'s own space)',
    }),
    title: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: "Overrides the page's title" }),
    ),
  },
  { additionalProperties: false },
);
export type CaptureBody = Static<typeof CaptureBody>;

export const CaptureTaskName = Type.Union([Type.Literal('ingest.url'), Type.Literal('ingest.video')], {
  description:
    'ingest.video for youtube.com, www.youtube.com, m.youtube.com and youtu.be; ingest.url otherwise',
});

/** What ingest.url and ingest.video receive. */
export const IngestPayload = Type.Object(
  {
    capture_id: Uuid,
    url: Type.String({ minLength: 1 }),
    space_id: Uuid,
    title: Type.Union([Type.String(), Type.Null()]),
    origin: Type.Union([Type.Literal('url'), Type.Literal('webhook'), Type.Literal('video')]),
    tags: Type.Optional(Type.Array(Type.String())),
    captured_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type IngestPayload = Static<typeof IngestPayload>;

/** linkding.sync reads everything it needs from the configuration. */
export const LinkdingSyncPayload = Type.Object({}, { additionalProperties: false });

const CaptureState = Type.Union([
  Type.Literal('queued'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);

export const CaptureAccepted = Type.Object(
  {
    capture_id: Uuid,
    job_id: Type.String({ description: 'The job in /api/jobs' }),
    task: CaptureTaskName,
    idempotency_key: Type.String(),
    duplicate: Type.Boolean({ description: 'true: an earlier capture with this key is returned' }),
    url: Type.String(),
    space_id: Uuid,
    title: Type.Union([Type.String(), Type.Null()]),
    state: CaptureState,
  },
  { $id: 'CaptureAccepted' },
);
export type CaptureAccepted = Static<typeof CaptureAccepted>;

/** A captured URL or an uploaded file, as the capture inbox lists it. */
export const Capture = Type.Object(
  {
    id: Uuid,
    origin: SourceDocOrigin,
    url: Type.Union([Type.String(), Type.Null()], { description: 'The captured URL; null for an upload' }),
    filename: Type.Union([Type.String(), Type.Null()], {
      description: "An upload's file name; null for a URL",
    }),
    title: Type.Union([Type.String(), Type.Null()], {
      description: "The title given with the capture, else the document's; null until the page is fetched",
    }),
    state: CaptureState,
    error: Type.Union([Type.String(), Type.Null()], {
      description: 'Why the capture failed or was cancelled',
    }),
    space_id: Uuid,
    document_id: Type.Union([Uuid, Type.Null()], {
      description: 'The source document it produced (GET /api/source-docs/:id); null until it completes',
    }),
    job_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The ingest job in /api/jobs (retry a failed one there); null for an upload',
    }),
    read_at: Type.Union([Timestamp, Type.Null()], {
      description:
        "When the owner read it; null: unread. Once a capture has its document, the document's read state",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Capture' },
);
export type Capture = Static<typeof Capture>;

export const CaptureList = Type.Object({
  ...Paginated(Type.Ref('Capture')).properties,
  unread: Type.Integer({ minimum: 0, description: 'How many of the entries the filters match are unread' }),
});

export const CaptureListQuery = Type.Intersect([
  PageQuery,
  Type.Object({
    state: Type.Optional(CaptureState),
    space_id: Type.Optional(Uuid),
    unread: Type.Optional(Type.Boolean({ description: 'true: only the entries not read yet' })),
  }),
]);

export const CaptureParams = Type.Object({ id: Uuid });

export const CaptureReadBody = Type.Object(
  {
    read: Type.Boolean({
      description: 'true marks it read (a read one keeps its time); false marks it unread again',
    }),
  },
  { additionalProperties: false },
);
export type CaptureListQuery = Static<typeof CaptureListQuery>;

/** The stored document, as GET /api/source-docs/:id shows it (a copy: that schema's $id lives in its domain). */
export const UploadedDoc = Type.Object(SourceDoc.properties);

/** An upload's payload: where it goes and its title. The file itself travels beside it, on disk. */
export const UploadChange = Type.Object(
  {
    space_id: Uuid,
    title: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const IngestParams = Type.Object({
  service: Type.String({ maxLength: 64, description: 'karakeep or generic' }),
});

export const IngestQuery = Type.Object({
  space_id: Type.Optional({
    ...Uuid,
    description: 'Where captured bookmarks go; default: the "Inbox" space',
  }),
});

export const IngestHeaders = Type.Object({
  'x-hub-signature-256': Type.Optional(
    Type.String({
      description:
        'sha256=<hex>: HMAC-SHA256 of the raw request body with WEBHOOK_SECRET, lower- or upper-case hex',
    }),
  ),
  authorization: Type.Optional(
    Type.String({
      description: 'Bearer <WEBHOOK_SECRET>: what a stock Karakeep sends (the token of its webhook settings)',
    }),
  ),
});

export const WebhookResult = Type.Object({
  service: Type.String(),
  operation: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('captured'), Type.Literal('duplicate'), Type.Literal('ignored')]),
  reason: Type.Optional(Type.String()),
  capture: Type.Union([Type.Ref('CaptureAccepted'), Type.Null()]),
});

/** The upload form as the OpenAPI document shows it (the route reads the parts as a stream, in any order). */
export const UploadForm = Type.Object({
  space_id: { ...Uuid, description: 'an existing space (in an agent’s scope)' },
  file: Type.String({ format: 'binary', description: 'text, Markdown, HTML or PDF' }),
  title: Type.Optional(Type.String({ maxLength: 500 })),
});

export const ingestUrlTask = defineTask({
  name: 'ingest.url',
  payload: IngestPayload,
  description:
    "Fetches a captured URL through the guarded client and stores the page's text as a source document",
});

export const ingestVideoTask = defineTask({
  name: 'ingest.video',
  payload: IngestPayload,
  description: "Stores a captured video's oEmbed metadata and, when configured, its transcript",
});

export const linkdingSyncTask = defineTask({
  name: 'linkding.sync',
  payload: LinkdingSyncPayload,
  description:
    'Reads the bookmarks added or changed in linkding (LINKDING_URL) since the last run and captures each one',
  maxAttempts: 3,
});
