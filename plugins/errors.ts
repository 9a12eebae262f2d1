// One error handler for the whole API. Bodies keep Fastify's shape { statusCode, code, error, message };
// database errors map to the status a client can act on; a 5xx says nothing specific (the log has the detail).

import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

interface PostgresLikeError {
  code?: string;
  constraint_name?: string;
  detail?: string;
  column_name?: string;
}

const connectionCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  // The database was dropped, or our role was refused: for a client, the database is as good as down.
  '3D000',
  '28000',
  '28P01',
]);

export interface MappedError {
  statusCode: number;
  code: string;
  message: string;
}

/** Maps PostgreSQL and driver errors to HTTP; returns null for anything else. */
export function mapDatabaseError(error: PostgresLikeError): MappedError | null {
  const code = error.code ?? '';
  if (code === '23505') {
    return {
      statusCode: 409,
      code: 'UNIQUE_VIOLATION',
      message: `already exists (${error.constraint_name ?? 'unique'})`,
    };
  }
  if (code === '23503') {
    return {
      statusCode: 409,
      code: 'FOREIGN_KEY_VIOLATION',
      message: `refers to or is referred to by a missing or dependent record (${error.constraint_name ?? 'foreign key'})`,
    };
  }
  if (code === '23001') {
    return {
      statusCode: 409,
      code: 'RESTRICT_VIOLATION',
      message: `still in use (${error.constraint_name ?? 'restrict'})`,
    };
  }
  if (code === '22P02')
    return {
      statusCode: 400,
      code: 'INVALID_INPUT',
      message: 'invalid input syntax (for example a malformed uuid)',
    };
  if (code === '23514')
    return {
      statusCode: 400,
      code: 'CHECK_VIOLATION',
      message: `value not allowed (${error.constraint_name ?? 'check'})`,
    };
  if (code === '23502')
    return {
      statusCode: 400,
      code: 'NOT_NULL_VIOLATION',
      message: `${error.column_name ?? 'a field'} is required`,
    };
  if (code === '22001') return { statusCode: 400, code: 'VALUE_TOO_LONG', message: 'a value is too long' };
  if (code === '22007' || code === '22008')
    return { statusCode: 400, code: 'INVALID_DATETIME', message: 'invalid date or time' };
  if (code === '40001' || code === '40P01')
    return { statusCode: 409, code: 'CONFLICT', message: 'concurrent update, try again' };
  if (code === '57014')
    return { statusCode: 503, code: 'STATEMENT_TIMEOUT', message: 'the database took too long to answer' };
  // 08: connection exceptions; 53: insufficient resources (too many connections, disk full, out of memory).
  if (connectionCodes.has(code) || code.startsWith('08') || code.startsWith('53')) {
    return { statusCode: 503, code: 'DATABASE_UNAVAILABLE', message: 'the database is unavailable' };
  }
  return null;
}

export function errorBody(statusCode: number, code: string, message: string) {
  return { statusCode, code, error: STATUS_CODES[statusCode] ?? 'Error', message };
}

/**
 * What a client may be told of an error: the status it can act on, a code and a message. Also used where errors
 * are answered outside a route's reply (tool results, recorded approval failures).
 */
export function describeError(error: unknown): MappedError {
  const err = error as FastifyError;
  const mapped = mapDatabaseError(err as PostgresLikeError);
  let statusCode = mapped?.statusCode ?? err.statusCode ?? 500;
  if (statusCode < 400 || statusCode > 599) statusCode = 500;
  // A code without a status is a library's (a SQLSTATE, a system error): internal, so not shown.
  const code =
    mapped?.code ?? (err.statusCode ? err.code : undefined) ?? (statusCode >= 500 ? 'INTERNAL' : 'ERROR');
  // Only our own mapped 5xx messages are safe to show; anything else could carry SQL or internals.
  const message = mapped?.message ?? (statusCode >= 500 ? 'internal error' : err.message);
  return { statusCode, code, message };
}

function handle(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const described = describeError(error);
  let { statusCode, code } = described;

  if (error.validation) {
    statusCode = 400;
    code = 'FST_ERR_VALIDATION';
  }
  if (statusCode >= 500) {
    request.log.error({ err: error }, 'request failed');
  } else if (statusCode !== 404) {
    request.log.info({ statusCode, code, message: described.message }, 'request refused');
  }
  const body: Record<string, unknown> = errorBody(statusCode, code, described.message);
  if (error.validation) body.validation = error.validation;
  if (statusCode === 429 && reply.getHeader('retry-after') === undefined) reply.header('retry-after', '60');
  return reply.status(statusCode).send(body);
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
