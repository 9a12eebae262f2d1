// The input boundary: every request's parameters, query and JSON body are checked here once, for every route,
// before a handler or the database sees them (lib/input.ts says what is refused and why). A refusal is a 400
// naming the field: INVALID_TEXT (NUL, unpaired surrogate), JSON_TOO_DEEP, or VALIDATION_FAILED (a number that is
// not finite, which Ajv's type coercion lets through: `?limit=Infinity`). Multipart field names, file names and
// values get the same text check as they are read.
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
