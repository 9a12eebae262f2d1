// The OpenAPI 3 document is generated from the route schemas; /api/openapi.json serves it and /api/docs renders it.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { ErrorResponse } from '../lib/schemas.ts';

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
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
    app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
