// One error handler for the whole API. Bodies keep Fastify's shape { statusCode, code, error, message } and every
// code comes from the catalogue (lib/errors.ts): a catalogued error is sent as declared, database errors map to the
// status a client can act on with a message in words, and anything else gets the generic code of its status. A 5xx
// says nothing specific unless it is our own catalogued error (the log has the detail).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type MappedError, mapDatabaseError, type PostgresLikeError } from '../lib/database-errors.ts';
import { codeForStatus, type ErrorCode, errorBody, HubError, isErrorCode } from '../lib/errors.ts';
import { refusedUrlField } from '../lib/input.ts';

export { type MappedError, mapDatabaseError } from '../lib/database-errors.ts';
export { errorBody };

/** Fastify's own errors that deserve a specific code rather than their status's. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_VALIDATION: 'VALIDATION_FAILED',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'INVALID_MULTIPART',
  FST_MULTIPART_INVALID_CONTENT_TYPE: 'INVALID_MULTIPART',
  FST_REQ_FILE_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_PARTS_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FILES_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_FIELDS_LIMIT: 'PAYLOAD_TOO_LARGE',
};

/**
 * The multipart parser (busboy) throws plain errors, without a status, for a body that is not the multipart its
 * Content-Type claims: no boundary, another boundary, a body cut short, a broken part header.
 */
const malformedMultipart =
  /^(?:Multipart: Boundary not found|Boundary required|Unexpected end of (?:multipart data|form)|\w+ terminated early due to unexpected end of multipart data|Malformed part header)$/;

/**
 * What a client may be told of an error: the status it can act on, a catalogued code and a message. Also used where
 * errors are answered outside a route's reply (tool results, recorded approval failures).
 */
export function describeError(error: unknown): MappedError {
  if (error instanceof HubError)
    return { statusCode: error.statusCode, code: error.code, message: error.message };
  const err = error as FastifyError;
  const mapped = mapDatabaseError(err as PostgresLikeError);
  if (mapped) return mapped;
  if (err?.statusCode === undefined && malformedMultipart.test(String(err?.message))) {
    return {
      statusCode: 400,
      code: 'INVALID_MULTIPART',
      message: `malformed multipart body: ${err.message}`,
    };
  }
  const refusedUrl = err?.validation ? refusedUrlField(err.validation) : undefined;
  if (refusedUrl !== undefined) {
    return {
      statusCode: 400,
      code: 'URL_REFUSED',
      message: `${err.validationContext ?? 'body'}${refusedUrl} must be an http or https URL`,
    };
  }
  let statusCode = err?.validation ? 400 : (err?.statusCode ?? 500);
  if (statusCode < 400 || statusCode > 599) statusCode = 500;
  // Only our own catalogued 5xx messages are safe to show; anything else could carry SQL or internals.
  if (statusCode >= 500) return { statusCode, code: codeForStatus(statusCode), message: 'internal error' };
  const code = err.validation
    ? 'VALIDATION_FAILED'
    : isErrorCode(err.code)
      ? err.code
      : (fastifyCodes[err.code] ?? codeForStatus(statusCode));
  return { statusCode, code, message: err.message };
}

function handle(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const { statusCode, code, message } = describeError(error);
  if (statusCode >= 500 && !(error instanceof HubError) && code !== 'DATABASE_UNAVAILABLE') {
    request.log.error({ err: error }, 'request failed');
  } else if (statusCode !== 404) {
    request.log.info({ statusCode, code, message }, 'request refused');
  }
  const body: Record<string, unknown> = { ...errorBody(statusCode, code, message) };
  if (error instanceof HubError && error.extra) Object.assign(body, error.extra);
  if (error.validation) body.validation = error.validation;
  if (statusCode === 429 && reply.getHeader('retry-after') === undefined) reply.header('retry-after', '60');
  return reply.status(statusCode).send(body);
}

/**
 * Errors the router raises before any route or hook runs (Fastify's `frameworkErrors`): a URL whose percent-encoding
 * is broken, a path parameter past the router's length limit. Answered in the catalogue's shape, without echoing
 * the (possibly huge) path.
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply.status(400).send(errorBody(400, 'VALUE_TOO_LONG', 'a path parameter is too long'));
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return reply
      .status(400)
      .send(errorBody(400, 'BAD_REQUEST', 'the URL is not valid (broken percent-encoding)'));
  }
  return handle(error, request, reply);
}

export default fp(
  async (app) => {
    app.setErrorHandler(handle);
    app.setNotFoundHandler((request, reply) =>
      reply
        .status(404)
        .send(errorBody(404, 'NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`)),
    );
  },
  { name: 'errors' },
);
