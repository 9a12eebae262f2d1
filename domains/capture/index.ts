// Capture and ingestion routes: POST /capture (a URL becomes an ingest.url or ingest.video job), POST
// /capture/upload (a file becomes a source document at once) and the signed bookmark webhook POST /ingest/:service.
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { assertStorable } from '../../lib/input.ts';
import { errors } from '../../lib/schemas.ts';
import { agentCanReachSpace, publicAccess } from '../../plugins/auth.ts';
import { errorBody } from '../../plugins/errors.ts';
import { insertSourceDoc } from '../source-docs/store.ts';
import { acceptedBody, capture } from './capture.ts';
import { type Extracted, ExtractionError, extractDocument, sniffType } from './extract.ts';
import { CaptureUrlError, checkCaptureUrl } from './routing.ts';
import {
  CaptureAccepted,
  CaptureBody,
  IngestHeaders,
  IngestParams,
  IngestQuery,
  UploadedDoc,
  UploadForm,
  WebhookResult,
} from './schema.ts';
import { defaultSpaceId, spaceExists } from './store.ts';
import {
  GenericPayload,
  KarakeepPayload,
  LinkdingPayload,
  parserFor,
  signatureHeader,
  signatureMatches,
  WebhookPayloadError,
  webhookParsers,
} from './webhook.ts';

const tags = ['capture'];
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const webhookBodyLimit = 1024 * 1024;

const plugin: FastifyPluginAsyncTypebox = async (app) => {
  app.addSchema(CaptureAccepted);
  const config = app.config;
  // The guarded client's pools are closed by the jobs plugin, after the worker has stopped (plugins/jobs.ts).

  function badUrl(error: unknown): never {
    if (error instanceof CaptureUrlError) throw app.httpErrors.badRequest(error.message);
    throw error;
  }

  /** A space the caller named (must exist and be in an agent's scope), or the default one. */
  async function targetSpace(request: FastifyRequest, spaceId: string | undefined): Promise<string> {
    const principal = request.principal;
    if (spaceId === undefined) {
      if (principal?.kind === 'agent' && principal.spaceId) return principal.spaceId;
      return defaultSpaceId(app.sql);
    }
    if (!agentCanReachSpace(principal, spaceId)) {
      throw app.httpErrors.forbidden("space outside this agent's scope");
    }
    if (!(await spaceExists(app.sql, spaceId))) throw app.httpErrors.notFound('space not found');
    return spaceId;
  }

  app.post(
    '/capture',
    {
      onRequest: app.agentOrOwner,
      schema: {
        tags,
        summary: 'Capture a URL',
        description:
          'Queues ingest.video for youtube.com, www.youtube.com, m.youtube.com and youtu.be URLs and ingest.url ' +
          'for any other http(s) URL; the job stores the page as a searchable source document. The same ' +
          'idempotency_key again returns the first capture (duplicate: true) and queues nothing.',
        body: CaptureBody,
        response: { 202: Type.Ref('CaptureAccepted'), ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      let url: URL;
      try {
        url = checkCaptureUrl(body.url, config);
      } catch (error) {
        badUrl(error);
      }
      const spaceId = await targetSpace(request, body.space_id);
      const result = await capture(app.sql, config, {
        url,
        idempotency_key: body.idempotency_key,
        space_id: spaceId,
        title: body.title?.trim() || null,
        via: 'api',
      });
      if (result.duplicate && !agentCanReachSpace(request.principal, result.capture.space_id)) {
        throw app.httpErrors.conflict('this idempotency_key is already used by another capture');
      }
      return reply.status(202).send(acceptedBody(result));
    },
  );

  const uploadRoutes: FastifyPluginAsyncTypebox = async (uploads) => {
    await uploads.register(multipart, {
      limits: { fileSize: config.uploadMaxBytes, files: 1, fields: 5, fieldSize: 1024, parts: 6 },
    });

    uploads.post(
      '/capture/upload',
      {
        onRequest: app.agentOrOwner,
        schema: {
          tags,
          summary: 'Upload a document',
          description:
            'multipart/form-data with the fields space_id (a UUID of an existing space, checked before anything ' +
            'is stored), file (text, Markdown, HTML or PDF; the type is checked against the content; others ' +
            `are refused with 415; at most UPLOAD_MAX_BYTES, now ${config.uploadMaxBytes} bytes) and optionally ` +
            'title. The file becomes a searchable source document of origin "upload" at once.',
          requestBody: { 'multipart/form-data': UploadForm },
          response: { 201: UploadedDoc, ...errors(400, 401, 403, 404, 413, 415, 422, 429) },
        },
      },
      async (request, reply) => {
        if (!request.isMultipart()) {
          throw app.httpErrors.unsupportedMediaType(
            'send multipart/form-data with the fields space_id and file',
          );
        }
        let spaceId: string | null = null;
        let title: string | null = null;
        let file: { bytes: Buffer; filename: string; mimetype: string } | null = null;
        const checkSpace = async (value: string) => {
          if (!uuidPattern.test(value)) throw app.httpErrors.badRequest('space_id must be a UUID');
          await targetSpace(request, value);
          spaceId = value;
        };
        for await (const part of request.parts()) {
          if (part.type === 'file') {
            if (part.fieldname !== 'file') throw app.httpErrors.badRequest('the file field is named "file"');
            // Throws the 413 when the file passes the limit; nothing has been stored.
            const bytes = await part.toBuffer();
            file = { bytes, filename: part.filename, mimetype: part.mimetype };
          } else if (part.fieldname === 'space_id') {
            await checkSpace(String(part.value).trim());
          } else if (part.fieldname === 'title') {
            title = String(part.value).trim().slice(0, 500) || null;
          } else {
            throw app.httpErrors.badRequest(`unknown field "${part.fieldname}" (space_id, file, title)`);
          }
        }
        if (spaceId === null) throw app.httpErrors.badRequest('space_id is required');
        if (file === null) throw app.httpErrors.badRequest('file is required');
        const upload: { bytes: Buffer; filename: string; mimetype: string } = file;
        if (upload.bytes.length === 0) throw app.httpErrors.badRequest('the file is empty');
        const type = sniffType(upload.bytes, upload.mimetype, upload.filename);
        if (!type) {
          throw app.httpErrors.unsupportedMediaType(
            `${upload.filename || 'the file'} (${upload.mimetype}) is not text, Markdown, HTML or PDF, ` +
              'or its content is not what its type says',
          );
        }
        let extracted: Extracted;
        try {
          extracted = await extractDocument(upload.bytes, type);
        } catch (error) {
          if (error instanceof ExtractionError) throw app.httpErrors.unprocessableEntity(error.message);
          throw error;
        }
        const doc = await insertSourceDoc(app.sql, {
          space_id: spaceId,
          url: null,
          title: title ?? extracted.title ?? (upload.filename || 'Upload'),
          content: extracted.content,
          content_type: extracted.content_type,
          origin: 'upload',
          metadata: { ...extracted.metadata, filename: upload.filename, bytes: upload.bytes.length },
        });
        return reply.status(201).send(doc);
      },
    );
  };
  await app.register(uploadRoutes);

  const webhookRoutes: FastifyPluginAsyncTypebox = async (webhooks) => {
    // The signature covers the exact bytes sent: the body stays a Buffer until it has been verified.
    webhooks.removeAllContentTypeParsers();
    webhooks.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: webhookBodyLimit }, (_r, body, done) =>
      done(null, body),
    );

    webhooks.post(
      '/ingest/:service',
      {
        schema: {
          tags,
          summary: 'Bookmark webhook',
          description:
            'For bookmark services; no bearer token. Every delivery is signed: the header X-Hub-Signature-256 ' +
            'carries "sha256=" and the hex HMAC-SHA256 of the raw request body with WEBHOOK_SECRET (missing or ' +
            'wrong: 401; no WEBHOOK_SECRET configured: 503). The body is parsed only after the signature checks. ' +
            `Services: ${Object.keys(webhookParsers).join(', ')}. karakeep: {jobId, bookmarkId, userId, url, ` +
            'type, operation}; created and edited capture the URL, deleted is acknowledged, jobId deduplicates. ' +
            'linkding: {event: new_bookmark | updated_bookmark | deleted_bookmark, bookmark | new_bookmark}. ' +
            'generic: {url, title?, tags?, idempotency_key?}. Each captured bookmark is a capture (see POST ' +
            '/api/capture) into space_id or the "Inbox" space.',
          params: IngestParams,
          querystring: IngestQuery,
          headers: IngestHeaders,
          requestBody: {
            'application/json': Type.Union([KarakeepPayload, LinkdingPayload, GenericPayload], {
              description: 'by service: karakeep, linkding or generic',
            }),
          },
          response: {
            200: WebhookResult,
            202: WebhookResult,
            ...errors(400, 401, 404, 413, 503),
          },
        },
      },
      async (request, reply) => {
        const secret = config.webhookSecret;
        if (!secret) {
          // Sent, not thrown: the error handler hides the message of any 5xx it did not map itself.
          return (reply as FastifyReply)
            .status(503)
            .send(
              errorBody(
                503,
                'WEBHOOK_DISABLED',
                'the bookmark webhook is off: set WEBHOOK_SECRET to accept signed deliveries',
              ),
            );
        }
        const { service } = request.params;
        const parse = parserFor(service);
        if (!parse) {
          throw app.httpErrors.notFound(
            `unknown bookmark service "${service}" (${Object.keys(webhookParsers).join(', ')})`,
          );
        }
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const signature = request.headers[signatureHeader];
        if (typeof signature !== 'string' || signature === '') {
          throw app.httpErrors.unauthorized(
            `missing ${signatureHeader} header (sha256=<hex HMAC of the body>)`,
          );
        }
        if (!signatureMatches(secret, raw, signature)) {
          throw app.httpErrors.unauthorized(`${signatureHeader} does not match the body`);
        }
        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          throw app.httpErrors.badRequest('the body is not JSON');
        }
        assertStorable(json, 'body');
        let outcome: ReturnType<typeof parse>;
        try {
          outcome = parse(json, raw);
        } catch (error) {
          if (error instanceof WebhookPayloadError) throw app.httpErrors.badRequest(error.message);
          throw error;
        }
        if (outcome.kind === 'ignore') {
          return reply.status(200).send({
            service,
            operation: outcome.operation,
            status: 'ignored' as const,
            reason: outcome.reason,
            capture: null,
          });
        }
        let url: URL;
        try {
          url = checkCaptureUrl(outcome.bookmark.url, config);
        } catch (error) {
          badUrl(error);
        }
        const spaceId = request.query.space_id;
        if (spaceId !== undefined && !(await spaceExists(app.sql, spaceId))) {
          throw app.httpErrors.notFound('space not found');
        }
        const result = await capture(app.sql, config, {
          url,
          idempotency_key: outcome.bookmark.idempotency_key,
          space_id: spaceId ?? (await defaultSpaceId(app.sql)),
          title: outcome.bookmark.title ?? null,
          via: 'webhook',
          tags: outcome.bookmark.tags,
        });
        return reply.status(202).send({
          service,
          operation: outcome.operation,
          status: result.duplicate ? ('duplicate' as const) : ('captured' as const),
          capture: acceptedBody(result),
        });
      },
    );
  };
  await app.register(publicAccess(webhookRoutes));
};

export default plugin;
