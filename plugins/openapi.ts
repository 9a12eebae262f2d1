// The OpenAPI 3 document is generated from the route schemas; /api/openapi.json serves it and /api/docs renders it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifySchema, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { TSchema } from 'typebox';
import { statusPhrase } from '../lib/errors.ts';
import { ErrorResponse, PendingReceipt } from '../lib/schemas.ts';
import { publicAccess } from './auth.ts';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * A request body documented but not validated by the route schema, by media type: a multipart upload read as
     * a stream, a signed webhook whose raw bytes are checked before they are parsed.
     */
    requestBody?: Record<string, TSchema>;
  }
}

interface Parameter {
  in: string;
  required?: boolean;
  schema?: { default?: unknown };
}

/**
 * A query parameter with a default (limit, offset, flags) must be declared in the route schema for Fastify to fill
 * it in, which makes the generator call it required; a client may leave it out, so the document says so.
 */
function optionalDefaults<T extends object>(document: T): T {
  const { paths = {} } = document as { paths?: Record<string, Record<string, { parameters?: Parameter[] }>> };
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'path' && parameter.schema?.default !== undefined) parameter.required = false;
      }
    }
  }
  return document;
}

const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The error statuses every route of its kind can send, whatever its handler does: 400 for any input the boundary
 * refuses (plugins/input.ts: the text, depth and number checks apply to every route), 401 and 429 where credentials
 * are needed (the agent rate limit), 403 where the owner alone or a writing tier is needed, 413 and 415 where a body
 * is read, and 503 everywhere (the database down, the service shutting down).
 */
function impliedStatuses(route: RouteOptions): number[] {
  const access = route.config?.access ?? 'owner';
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const writes = methods.some((method) => writeMethods.has(method));
  const statuses = [400, 503];
  if (access !== 'public') statuses.push(401, 429);
  if (access === 'owner' || (access === 'agentOrOwner' && writes && !route.config?.readOnly))
    statuses.push(403);
  if (methods.some((method) => method !== 'GET' && method !== 'HEAD' && method !== 'DELETE')) {
    statuses.push(413, 415);
  }
  return statuses;
}

/**
 * A shared schema (app.addSchema, named by its $id) used in a body or a response, whole or within (a page's items,
 * one branch of a union), is written in the document as a reference to its one entry under components, not copied
 * into every operation that uses it. Only the document changes: Fastify validates and serializes with the route's
 * own schema, which is copied here, never changed.
 */
function byReference(schema: unknown, shared: object): unknown {
  if (Array.isArray(schema)) return schema.map((item) => byReference(item, shared));
  if (!schema || typeof schema !== 'object') return schema;
  const id = (schema as { $id?: unknown }).$id;
  if (typeof id === 'string' && Object.hasOwn(shared, id)) return { $ref: id };
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, byReference(value, shared)]));
}

/** One route's documentation as it is served: its access, every status it can send, its real request body. */
function documentRoute(
  schema: FastifySchema | undefined,
  route: RouteOptions,
  shared: object,
): FastifySchema {
  const documented: FastifySchema = { ...schema };
  // Public routes need no credentials: no lock in the docs.
  if (route.config?.access === 'public') documented.security = [];
  const response = { ...(documented.response as Record<string, unknown> | undefined) };
  for (const status of impliedStatuses(route)) response[status] ??= ErrorResponse;
  for (const status of Object.keys(response)) response[status] = byReference(response[status], shared);
  documented.response = response;
  if (documented.body) documented.body = byReference(documented.body, shared);
  if (documented.requestBody) {
    const content = Object.entries(documented.requestBody).map(([media, body]) => [media, { schema: body }]);
    documented.body = { content: Object.fromEntries(content) };
    documented.consumes = Object.keys(documented.requestBody);
  }
  return documented;
}

/** What each error status means for a client, shown once under components.responses. */
const errorMeanings: Record<number, string> = {
  400: 'Invalid input',
  401: 'No credentials, or bad ones',
  403: 'Not allowed for this principal or tier',
  404: "Not found (or outside the agent's space)",
  409: 'Conflicts with the current state',
  412: 'The If-Match ETag is stale',
  413: 'The body is too large',
  415: 'Unsupported media type',
  422: 'Valid, but not applicable',
  429: 'Rate limited: wait for Retry-After seconds',
  502: 'The upstream failed',
  503: 'The database is down or the service is shutting down',
};

interface Response {
  $ref?: string;
  description?: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
}

interface Responses {
  paths?: Record<string, Record<string, { responses?: Record<string, Response> }>>;
  components?: { responses?: Record<string, Response> };
}

const errorSchema = '#/components/schemas/ErrorResponse';

/**
 * Every operation lists the error statuses it can send, each with the same body: one response per status under
 * components.responses named by the status (400, 401 ...; the shortest name, as some 1,800 references repeat it),
 * referenced from the operations. An error is JSON whatever the route's success media type (an event stream, audio,
 * CSV), so the shared response says application/json.
 */
function sharedErrorResponses<T extends object>(openapi: T): T {
  const document = openapi as Responses;
  const shared: Record<string, Response> = {};
  for (const operations of Object.values(document.paths ?? {})) {
    for (const { responses = {} } of Object.values(operations)) {
      for (const [status, response] of Object.entries(responses)) {
        const media = Object.values(response.content ?? {});
        const plainError =
          Number(status) >= 400 &&
          response.description === 'Default Response' &&
          media.length > 0 &&
          media.every((entry) => entry.schema?.$ref === errorSchema);
        if (!plainError) {
          // Fastify's placeholder says nothing: the status's own name says what it is.
          if (response.description === 'Default Response')
            response.description = statusPhrase(Number(status)) ?? 'Success';
          continue;
        }
        const name = status;
        shared[name] ??= {
          description: errorMeanings[Number(status)] ?? statusPhrase(Number(status)) ?? 'Error',
          content: { 'application/json': { schema: { $ref: errorSchema } } },
        };
        responses[status] = { $ref: `#/components/responses/${name}` };
      }
    }
  }
  document.components = {
    ...document.components,
    responses: { ...document.components?.responses, ...shared },
  };
  return openapi;
}

const schemaPrefix = '#/components/schemas/';

/** The named schema an answer's body is (its name under components.schemas), or undefined. */
function namedBody(response: Response): string | undefined {
  const refs = Object.values(response.content ?? {}).map((media) => media.schema?.$ref);
  const [first] = refs;
  if (response.$ref || !first?.startsWith(schemaPrefix) || refs.some((ref) => ref !== first))
    return undefined;
  return first.slice(schemaPrefix.length);
}

/**
 * An answer written alike by three operations or more, its body a named schema (an entity, the pending receipt, a
 * ping's text), is written once under components.responses, named by its schema (and its status, where the schema
 * answers alike under another), and referenced: its description and media types are not repeated by each operation.
 */
function sharedAnswers<T extends object>(openapi: T): T {
  const document = openapi as Responses;
  const answers = Object.values(document.paths ?? {}).flatMap((operations) =>
    Object.values(operations).flatMap(({ responses = {} }) =>
      Object.keys(responses).map((status) => ({ responses, status, key: JSON.stringify(responses[status]) })),
    ),
  );
  const uses = new Map<string, number>();
  for (const { key } of answers) uses.set(key, (uses.get(key) ?? 0) + 1);
  const shared: Record<string, Response> = {};
  const names = new Map<string, string>();
  for (const { responses, status, key } of answers) {
    const schema = namedBody(responses[status]);
    if (!schema || (uses.get(key) ?? 0) < 3) continue;
    let name = names.get(key);
    if (!name) {
      name = Object.hasOwn(shared, schema) ? `${schema}.${status}` : schema;
      for (let n = 2; Object.hasOwn(shared, name); n++) name = `${schema}.${status}.${n}`;
      shared[name] = responses[status];
      names.set(key, name);
    }
    responses[status] = { $ref: `#/components/responses/${name}` };
  }
  document.components = {
    ...document.components,
    responses: { ...document.components?.responses, ...shared },
  };
  return openapi;
}

interface Parameters {
  paths?: Record<string, Record<string, { parameters?: object[] }>>;
  components?: { parameters?: Record<string, object> };
}

/**
 * A parameter written alike by many operations (a path's `id`, a list's `limit` and `offset`) is written once under
 * components.parameters, named by where it is and its name, and referenced.
 */
function sharedParameters<T extends object>(openapi: T): T {
  const document = openapi as Parameters;
  const operations = Object.values(document.paths ?? {}).flatMap((byMethod) => Object.values(byMethod));
  const uses = new Map<string, number>();
  for (const { parameters = [] } of operations) {
    for (const parameter of parameters) {
      const key = JSON.stringify(parameter);
      uses.set(key, (uses.get(key) ?? 0) + 1);
    }
  }
  const shared: Record<string, object> = {};
  const names = new Map<string, string>();
  for (const [key, count] of uses) {
    if (count < 3) continue;
    const { in: where, name } = JSON.parse(key) as { in: string; name: string };
    let component = `${where}.${name}`.replace(/[^A-Za-z0-9._-]/g, '_');
    for (let n = 2; Object.hasOwn(shared, component); n++) component = `${where}.${name}.${n}`;
    shared[component] = JSON.parse(key);
    names.set(key, component);
  }
  for (const operation of operations) {
    operation.parameters = operation.parameters?.map((parameter) => {
      const component = names.get(JSON.stringify(parameter));
      return component ? { $ref: `#/components/parameters/${component}` } : parameter;
    });
  }
  document.components = {
    ...document.components,
    parameters: { ...document.components?.parameters, ...shared },
  };
  return openapi;
}

export default fp<{ version: string }>(
  async (app, { version }) => {
    app.addSchema(ErrorResponse);
    app.addSchema(PendingReceipt);
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Ops Hub API',
          version,
          description: 'Knowledge, capture, agents and home-lab dashboard of a single-owner operations hub.',
        },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'The owner token or an agent token.' },
            access: { type: 'apiKey', in: 'header', name: 'Cf-Access-Jwt-Assertion' },
          },
        },
        security: [{ bearer: [] }, { access: [] }],
      },
      transform: ({ schema, url, route, ...document }) => {
        const shared = 'openapiObject' in document ? document.openapiObject.components?.schemas : undefined;
        return { schema: documentRoute(schema, route, shared ?? {}), url };
      },
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
      transformObject: (document) =>
        'openapiObject' in document
          ? sharedParameters(sharedAnswers(sharedErrorResponses(optionalDefaults(document.openapiObject))))
          : document.swaggerObject,
    });
    await app.register(
      publicAccess(async (docs) => {
        // swagger-ui's CSP without upgrade-insecure-requests: over plain HTTP from another host on the LAN the
        // browser would otherwise fetch the page's scripts over https and show a blank page.
        await docs.register(swaggerUi, {
          routePrefix: '/api/docs',
          staticCSP: true,
          transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/g, ''),
        });
        docs.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      }),
    );
  },
  { name: 'openapi', dependencies: ['auth'] },
);
