// The input boundary: every request's parameters, query and JSON body are checked here once, for every route,
// before a handler or the database sees them (lib/input.ts says what is refused and why). A refusal is a 400
// naming the field: INVALID_TEXT (NUL, unpaired surrogate), JSON_TOO_DEEP, or VALIDATION_FAILED (a number that is
// not finite, which Ajv's type coercion lets through: `?limit=Infinity`). Multipart field names, file names and
// values get the same text check as they are read.
//
// A write the browser authenticates by itself (the session cookie, an access proxy's assertion) must be JSON, or
// multipart where the route takes a file: an HTML form can only send urlencoded, multipart or text/plain bodies, so
// a form planted in content the owner reads (and clicked by the owner) is refused 415 UNSUPPORTED_MEDIA_TYPE before
// its body is read, on every route, with a body schema or without. A write with neither body nor Content-Type
// (an approve from the app) passes: a form always sends a Content-Type, `enctype=text/plain` included.
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hubError } from '../lib/errors.ts';
import { assertStorable, textProblem } from '../lib/input.ts';

/** Throws the first problem of the request's parsed parts. */
function check(parts: [unknown, string][]): void {
  for (const [value, root] of parts) {
    if (value === undefined || value === null) continue;
    assertStorable(value, root);
  }
}

/** The parts of a multipart body, each refused when a name or value holds text that cannot be stored. */
const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
const multipart = 'multipart/form-data';

/** Whether the browser sent the credentials by itself, as it does for any form a page submits. */
function ambientlyAuthenticated(request: FastifyRequest): boolean {
  const principal = request.principal;
  return principal?.kind === 'owner' && (principal.via === 'session' || principal.via === 'access');
}

/** A route that reads a file says so in its schema (`consumes`, or a documented multipart request body). */
function takesFiles(request: FastifyRequest): boolean {
  const schema = request.routeOptions.schema;
  return schema?.consumes?.includes(multipart) === true || schema?.requestBody?.[multipart] !== undefined;
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Refuses a browser-authenticated write whose body a plain HTML form could have sent. */
function checkWriteMediaType(request: FastifyRequest): void {
  if (readMethods.has(request.method) || request.is404 || !ambientlyAuthenticated(request)) return;
  const header = request.headers['content-type'];
  const type = header?.split(';')[0].trim().toLowerCase() || null;
  const files = takesFiles(request);
  if (type === 'application/json' || (type === multipart && files)) return;
  if (type === null && !hasBody(request)) return;
  const wanted = files ? `application/json or ${multipart}` : 'application/json';
  throw hubError(
    'UNSUPPORTED_MEDIA_TYPE',
    `a signed-in browser write must be sent as ${wanted} (Content-Type: ${type ?? 'none'})`,
  );
}

async function* checkedParts(parts: AsyncIterableIterator<Multipart>): AsyncIterableIterator<Multipart> {
  for await (const part of parts) {
    const named = `multipart field ${JSON.stringify(part.fieldname)}`;
    const fieldProblem = textProblem(part.fieldname);
    if (fieldProblem) throw hubError('INVALID_TEXT', `the name of a multipart field ${fieldProblem}`);
    const text = part.type === 'file' ? part.filename : part.value;
    const problem = typeof text === 'string' ? textProblem(text) : null;
    if (problem) {
      throw hubError('INVALID_TEXT', `${part.type === 'file' ? 'the file name of ' : ''}${named} ${problem}`);
    }
    yield part;
  }
}

export default fp(
  async (app) => {
    // After every onRequest hook (the caller is known by then), before a byte of the body is read.
    app.addHook('preParsing', async (request, _reply, payload) => {
      checkWriteMediaType(request);
      return payload;
    });
    // Before validation: the text and depth checks must see the body before a schema (or a handler) walks it.
    app.addHook('preValidation', async (request: FastifyRequest) => {
      const body = Buffer.isBuffer(request.body) ? undefined : request.body;
      check([
        [request.params, 'params'],
        [request.query, 'querystring'],
        [body, 'body'],
      ]);
    });
    // After validation: coercion has turned `?limit=Infinity` into a number by now.
    app.addHook('preHandler', async (request: FastifyRequest) => {
      check([
        [request.params, 'params'],
        [request.query, 'querystring'],
      ]);
      // Decorated only where a route registered @fastify/multipart.
      if (
        typeof request.parts === 'function' &&
        typeof request.isMultipart === 'function' &&
        request.isMultipart()
      ) {
        const parts = request.parts;
        request.parts = (options) => checkedParts(parts.call(request, options));
      }
    });
  },
  { name: 'input', dependencies: ['errors'] },
);
