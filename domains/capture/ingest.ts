// POST /api/ingest/:service: the bookmark webhook. Public, under its own check: the delivery must carry
// WEBHOOK_SECRET as a bearer token (stock Karakeep) or sign the body with it (webhook.ts). The body stays raw bytes
// until that check has passed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import { assertStorable } from '../../lib/input.ts';
import { errors } from '../../lib/schemas.ts';
import { integrationSettings } from '../integrations/resolve.ts';
import { acceptedBody, capture, targetSpace } from './accept.ts';
import { checkCaptureUrlResolved } from './routing.ts';
import { IngestHeaders, IngestParams, IngestQuery, WebhookResult } from './schema.ts';
import {
  deliveryProblem,
  GenericPayload,
  KarakeepPayload,
  parserFor,
  signatureHeader,
  WebhookPayloadError,
  webhookParsers,
} from './webhook.ts';

const webhookBodyLimit = 1024 * 1024;

const ingestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = app.config;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: webhookBodyLimit }, (_r, body, done) =>
    done(null, body),
  );

  app.post(
    '/ingest/:service',
    {
      config: { checksSecret: true },
      schema: {
        tags: ['capture'],
        summary: 'Bookmark webhook',
        description:
          'For bookmark services; no hub token. Each delivery proves it knows WEBHOOK_SECRET in one of two ways: ' +
          '`Authorization: Bearer <WEBHOOK_SECRET>` (what a stock Karakeep sends with the token set in its ' +
          `webhook settings), or the header ${signatureHeader}: "sha256=" and the hex HMAC-SHA256 of the raw ` +
          'body with WEBHOOK_SECRET. Neither: 401 SIGNATURE_INVALID; no WEBHOOK_SECRET configured: 503 ' +
          `WEBHOOK_DISABLED. Services: ${Object.keys(webhookParsers).join(', ')}. karakeep: {jobId, bookmarkId, ` +
          'userId, url, type, operation}; created and edited bookmarks with a URL are captured (one capture per ' +
          'bookmark and URL); crawled, ai tagged, deleted and bookmarks without a URL (text, asset) are ' +
          'acknowledged with 200 and status "ignored". generic: {url, title?, tags?, idempotency_key?}. Each ' +
          'captured bookmark is a capture (see POST /api/capture) into space_id or the "Inbox" space. linkding is ' +
          'pulled instead (LINKDING_URL).',
        params: IngestParams,
        querystring: IngestQuery,
        headers: IngestHeaders,
        requestBody: {
          'application/json': Type.Union([KarakeepPayload, GenericPayload], {
            description: 'by service: karakeep or generic',
          }),
        },
        response: { 200: WebhookResult, 202: WebhookResult, ...errors(400, 401, 404, 409, 413, 503) },
      },
    },
    async (request, reply) => {
      const secret = (await integrationSettings(app, 'karakeep'))?.settings.webhookSecret;
      if (!secret) {
        throw hubError(
          'WEBHOOK_DISABLED',
          'the bookmark webhook is off: set WEBHOOK_SECRET, or the Karakeep secret in Settings → Integrations, to accept deliveries',
        );
      }
      const { service } = request.params;
      const parse = parserFor(service);
      if (!parse) {
        throw hubError(
          'UNKNOWN_SERVICE',
          `unknown bookmark service "${service}" (${Object.keys(webhookParsers).join(', ')})`,
        );
      }
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const problem = deliveryProblem(secret, raw, request.headers);
      if (problem) throw hubError('SIGNATURE_INVALID', problem);
      let json: unknown;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        throw hubError('INVALID_JSON', 'the body is not JSON');
      }
      assertStorable(json, 'body');
      let outcome: ReturnType<typeof parse>;
      try {
        outcome = parse(json, raw);
      } catch (error) {
        if (error instanceof WebhookPayloadError) throw hubError('VALIDATION_FAILED', error.message);
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
      const url = await checkCaptureUrlResolved(outcome.bookmark.url, config);
      const spaceId = await targetSpace(app.sql, null, request.query.space_id);
      const result = await capture(app.sql, config, {
        url,
        idempotency_key: outcome.bookmark.idempotency_key,
        space_id: spaceId,
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

export default ingestRoutes;
