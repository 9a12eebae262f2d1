// The OpenAPI 3 document is generated from the route schemas; /api/openapi.json serves it and /api/docs renders it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { ErrorResponse } from '../lib/schemas.ts';
import { publicAccess } from './auth.ts';

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

export default fp<{ version: string }>(
  async (app, { version }) => {
    app.addSchema(ErrorResponse);
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
      refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
      transformObject: (document) =>
        'openapiObject' in document ? optionalDefaults(document.openapiObject) : document.swaggerObject,
    });
    await app.register(
      publicAccess(async (docs) => {
        await docs.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
        docs.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
      }),
    );
  },
  { name: 'openapi', dependencies: ['auth'] },
);
