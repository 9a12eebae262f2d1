// The OpenAPI document covers every route the app registers under /api, whoever adds it: the routes are read
// from the app itself (printRoutes), not from a list kept here.
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { testApp } from './helpers/app.ts';
import { repoRoot } from './helpers/process.ts';

const { version } = JSON.parse(await readFile(`${repoRoot}/package.json`, 'utf8')) as { version: string };

/** Routes served by the documentation itself, hidden from the document on purpose. */
const undocumented = [/^\/api\/docs(\/|$)/, /^\/api\/openapi\.json$/];

/**
 * POST/PUT/PATCH routes documented without a JSON request body schema. Add a route here only when it takes no body
 * (a trigger) or a body no JSON schema can describe (a multipart upload, a signed raw webhook) and its description
 * says what to send; every other write documents its body with `schema.body`.
 */
const withoutBodySchema = new Set([
  'POST /api/capture/upload', // multipart/form-data, streamed
  'POST /api/ingest/:service', // raw bytes: the HMAC signature is checked before parsing
  'POST /api/jobs/:id/retry',
  'POST /api/projects/:id/research',
  'POST /api/pending-changes/:id/approve',
  'POST /api/devices/scan',
  'POST /api/health/discover',
]);

interface Route {
  method: string;
  path: string;
}

/** Every method and full path of the app's router, read from its printed tree. */
function registeredRoutes(app: FastifyInstance): Route[] {
  const prefixes: string[] = [];
  const routes: Route[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const path = (depth > 0 ? prefixes[depth - 1] : '') + match[2];
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, path });
  }
  return routes;
}

interface Operation {
  tags?: string[];
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

function refs(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refs(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.add(inner);
      else refs(inner, found);
    }
  }
  return found;
}

t.test('the OpenAPI document describes every /api route', async (t) => {
  const ta = await testApp(t);
  const response = await ta.anon({ method: 'GET', url: '/api/openapi.json' });
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^application\/json/);
  const doc = response.json() as Document;
  t.match(doc.openapi, /^3\./, 'OpenAPI 3');
  t.equal(doc.info.version, version);
  t.ok(doc.info.title);

  const schemas = doc.components?.schemas ?? {};
  for (const ref of refs(doc)) {
    t.ok(ref.startsWith('#/components/schemas/') && ref.split('/').pop()! in schemas, `${ref} resolves`);
  }

  t.match(
    doc.paths['/api/spaces']?.get?.parameters?.find((parameter) => parameter.name === 'limit'),
    { in: 'query', required: false },
    'a query parameter with a default is optional',
  );

  const routes = registeredRoutes(ta.app).filter(
    (route) =>
      route.path.startsWith('/api/') &&
      !['HEAD', 'OPTIONS'].includes(route.method) &&
      !undocumented.some((pattern) => pattern.test(route.path)),
  );
  for (const known of ['GET /api/healthz', 'GET /api/spaces/:id', 'POST /api/spaces', 'PUT /api/theme']) {
    t.ok(
      routes.some((route) => `${route.method} ${route.path}` === known),
      `the route walk finds ${known}`,
    );
  }
  t.comment(`${routes.length} routes under /api checked against the document`);

  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    // find-my-way's :name (with an optional regexp) is OpenAPI's {name}.
    const path = route.path.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}');
    const operation = doc.paths[path]?.[route.method.toLowerCase()];
    if (!operation) {
      t.fail(`${name} is missing from the OpenAPI document`);
      continue;
    }
    t.ok(operation.tags?.length, `${name} has a tag`);

    // Without a response schema the generator writes a placeholder: "Default Response" and no content.
    const responses = Object.entries(operation.responses ?? {});
    t.ok(responses.length > 0, `${name} documents its responses`);
    for (const [status, described] of responses) {
      const content = Object.values(described.content ?? {});
      const schema = content.length > 0 && content.every((media) => media.schema !== undefined);
      t.ok(schema || described.description !== 'Default Response', `${name} ${status} has a response schema`);
    }
    // A method kept only to answer 405 (with an Allow header) has no success to document.
    if (!responses.some(([status]) => status === '405')) {
      t.ok(
        responses.some(([status]) => /^[23]\d\d$/.test(status)),
        `${name} documents its success response`,
      );
    }

    for (const param of path.matchAll(/\{([^}]+)\}/g)) {
      t.ok(
        operation.parameters?.some((p) => p.in === 'path' && p.name === param[1]),
        `${name} documents its path parameter ${param[1]}`,
      );
    }

    if (['POST', 'PUT', 'PATCH'].includes(route.method) && !withoutBodySchema.has(name)) {
      const content = Object.values(operation.requestBody?.content ?? {});
      t.ok(
        content.length > 0 && content.every((media) => media.schema),
        `${name} has a request body schema (or, taking none, is listed in withoutBodySchema)`,
      );
    }
  }
});

t.test('the documentation renders', async (t) => {
  const ta = await testApp(t);
  let response = await ta.anon({ method: 'GET', url: '/api/docs' });
  for (let hops = 0; response.statusCode >= 300 && response.statusCode < 400 && hops < 3; hops++) {
    response = await ta.anon({
      method: 'GET',
      url: new URL(String(response.headers.location), 'http://hub/api/docs').pathname,
    });
  }
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^text\/html/);
  t.match(response.body, /swagger-ui/i);
  const json = await ta.anon({ method: 'GET', url: '/api/docs/json' });
  t.equal(json.statusCode, 200, 'the page loads the same document');
  t.same(json.json().paths, (await ta.anon({ method: 'GET', url: '/api/openapi.json' })).json().paths);
});

t.test('liveness and version', async (t) => {
  const ta = await testApp(t);
  const health = await ta.anon({ method: 'GET', url: '/api/healthz' });
  t.equal(health.statusCode, 200);
  t.same(health.json(), { status: 'ok' });
  const reported = await ta.anon({ method: 'GET', url: '/api/version' });
  t.equal(reported.statusCode, 200);
  t.same(reported.json(), { version });
  t.match(version, /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, 'a semver');
});
