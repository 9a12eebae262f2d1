import { type Static, Type } from 'typebox';
import { Uuid } from '../../lib/schemas.ts';
import { SourceDoc } from '../source-docs/schema.ts';

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
    state: Type.Union([
      Type.Literal('queued'),
      Type.Literal('completed'),
      Type.Literal('failed'),
      Type.Literal('cancelled'),
    ]),
  },
  { $id: 'CaptureAccepted' },
);
export type CaptureAccepted = Static<typeof CaptureAccepted>;

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
