// The OpenAPI document covers every route the app registers under /api, whoever adds it: the routes are read
// from the app itself (printRoutes), not from a list kept here.
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { errorCodes } from '../lib/errors.ts';
import { publicRoutes } from '../plugins/auth.ts';
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
  'POST /api/approvals/:token', // the token in the path is all it takes
  'POST /api/apps/:id/icon/refresh',
  'POST /api/apps/discovered/:id/promote',
  'POST /api/health/services/:id/resume',
  'POST /api/projects/:id/research',
  'POST /api/pending-changes/:id/approve',
  'POST /api/pages/:id/versions/:n/restore',
  'POST /api/trash/:id/restore',
  'POST /api/routines/:id/run',
  'POST /api/icon-sets', // multipart/form-data (name, file) or JSON { name, url }, described in its description
  'POST /api/icon-sets/:set/icons', // multipart/form-data, streamed
  'POST /api/voice/transcribe', // multipart/form-data (file, language)
  'POST /api/speedtest/run',
  'POST /api/alerts/targets/:id/test',
  'POST /api/actions/:id/approve',
  'POST /api/devices/scan',
  'POST /api/health/discover',
  'POST /api/health/services/:id/push-token',
  'POST /api/push/:token', // a heartbeat: its query says it all, a body is ignored
  'POST /api/ping/:token', // heartbeats: any body, of any type, is kept as text (the first 10 KB)
  'POST /api/ping/:token/start',
  'POST /api/ping/:token/fail',
  'POST /api/ping/:token/log',
  'POST /api/ping/:token/:code',
  'POST /api/mcp-servers/:id/refresh',
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
  security?: unknown[];
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content?: Record<string, { schema?: { required?: string[]; properties?: object } }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}

interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

/** What a local reference (`#/components/schemas/Space`) points to in the document, or undefined. */
function pointed(doc: object, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let value: unknown = doc;
  for (const token of ref.slice(2).split('/')) {
    const key = decodeURIComponent(token).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!value || typeof value !== 'object' || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
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

  for (const ref of refs(doc)) t.ok(pointed(doc, ref) !== undefined, `${ref} resolves`);
  // Parameters and answers many operations share are references to components.parameters and
  // components.responses: read them written out.
  for (const operations of Object.values(doc.paths)) {
    for (const operation of Object.values(operations)) {
      operation.parameters = operation.parameters?.map((parameter) =>
        '$ref' in parameter ? (pointed(doc, String(parameter.$ref)) as typeof parameter) : parameter,
      );
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if ('$ref' in response && operation.responses)
          operation.responses[status] = pointed(doc, String(response.$ref)) as typeof response;
      }
    }
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

    // What any route can answer (plugins/openapi.ts): the input boundary's 400 and the database's 503 everywhere;
    // 401 and 429 behind credentials; 403 where the owner alone, or a writing tier, is needed.
    const statuses = responses.map(([status]) => status);
    const isPublic = publicRoutes.includes(name);
    for (const status of ['400', '503', ...(isPublic ? [] : ['401', '429'])]) {
      t.ok(statuses.includes(status), `${name} lists ${status}`);
    }
    if (isPublic) t.same(operation.security, [], `${name} is public: no lock`);
    else t.equal(operation.security, undefined, `${name} needs credentials: the document's lock`);

    if (['POST', 'PUT', 'PATCH'].includes(route.method) && !withoutBodySchema.has(name)) {
      const content = Object.values(operation.requestBody?.content ?? {});
      t.ok(
        content.length > 0 && content.every((media) => media.schema),
        `${name} has a request body schema (or, taking none, is listed in withoutBodySchema)`,
      );
    }
  }
});

t.test('shared schemas are written once and referenced: the document stays small', async (t) => {
  const ta = await testApp(t);
  const response = await ta.anon({ method: 'GET', url: '/api/openapi.json' });
  const doc = response.json() as Document & { components: { responses?: Record<string, unknown> } };
  // Served as is to the docs page and turned into the web app's types: size is load time for both.
  const size = Buffer.byteLength(response.body);
  t.ok(size < 400_000, `the document is ${Math.round(size / 1024)} KB, under 400 KB`);
  t.ok(refs(doc).size > 0, 'it uses references');
  for (const ref of refs(doc)) t.ok(pointed(doc, ref) !== undefined, `${ref} resolves`);

  // The error body with its whole catalogue of codes: once under components, whatever the number of routes.
  const catalogue = JSON.stringify(errorCodes);
  t.equal(
    response.body.split(catalogue.slice(1, -1)).length - 1,
    1,
    'the error-code catalogue is written once',
  );
  const spaces = doc.paths['/api/spaces'];
  t.same(spaces.post.responses?.['400'], { $ref: '#/components/responses/400' }, 'errors by reference');
  t.match(
    pointed(doc, '#/components/responses/400'),
    {
      description: /\w/,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponse' } } },
    },
    'one described response per error status, its body JSON',
  );
  // A shared schema (an entity) used whole as a response is referenced, not copied in.
  t.same(
    doc.paths['/api/health/services'].post.responses?.['201']?.content?.['application/json']?.schema,
    { $ref: '#/components/schemas/Service' },
    'an entity by reference',
  );
  // Within a response too: a page's items.
  t.match(
    doc.paths['/api/timeline'].get.responses?.['200']?.content?.['application/json']?.schema,
    { properties: { items: { items: { $ref: '#/components/schemas/TimelineEvent' } } } },
    "a page's items by reference",
  );
  // The answer written alike by many operations (its status's description and media type with the schema) is one
  // named response: the ten ping operations' text answers, the pending receipt of every diverted write.
  const ping = doc.paths['/api/ping/{token}/start'].post.responses;
  for (const status of ['200', '404', '429']) {
    t.same(ping?.[status], { $ref: '#/components/responses/PingAnswer' }, `a ping's ${status} by reference`);
  }
  t.match(pointed(doc, '#/components/responses/PingAnswer'), {
    content: { 'text/plain': { schema: { $ref: '#/components/schemas/PingAnswer' } } },
  });
  t.same(
    doc.paths['/api/pages'].post.responses?.['202'],
    { $ref: '#/components/responses/PendingReceipt' },
    'the pending receipt by reference',
  );
  // The add and replace routes' body is the change's fields with a name and a kind: the fields are written once.
  t.match(pointed(doc, '#/components/schemas/ServiceInput'), {
    allOf: [{ $ref: '#/components/schemas/ServiceChange' }, { required: ['name', 'kind'] }],
  });
});

t.test('the document tells the truth about bodies, statuses and required fields', async (t) => {
  const ta = await testApp(t);
  const doc = (await ta.anon({ method: 'GET', url: '/api/openapi.json' })).json() as Document;
  const upload = doc.paths['/api/capture/upload'].post.requestBody?.content?.['multipart/form-data']?.schema;
  t.match(
    upload,
    { properties: { space_id: {}, file: { format: 'binary' } } },
    'the upload form is documented',
  );
  t.match(upload?.required, ['space_id', 'file'], 'with its required fields');
  t.ok(
    doc.paths['/api/ingest/{service}'].post.requestBody?.content?.['application/json']?.schema,
    'webhook body',
  );
  t.ok(
    doc.paths['/api/mcp'].post.responses?.['406'],
    "MCP's 406 (Accept without both media types) is listed",
  );
  const mcp = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp',
    headers: { accept: 'text/html' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  t.equal(mcp.statusCode, 406, 'and sent');

  // space_id on creates: optional, and the document says what stands in for it: a space-scoped agent's own space,
  // else the "Inbox" space, as for captures.
  for (const path of ['/api/pages', '/api/projects', '/api/refs', '/api/resources', '/api/source-docs']) {
    const body = doc.paths[path].post.requestBody?.content?.['application/json']?.schema as {
      properties: Record<string, { description?: string }>;
      required?: string[];
    };
    t.notOk(body.required?.includes('space_id'), `${path}: space_id is optional in the document`);
    t.match(
      body.properties.space_id.description,
      /Default: for an agent scoped to one space, its space; otherwise the "Inbox" space/,
      `${path}: and what stands in for it`,
    );
  }
  const withoutSpace = await ta.asOwner({ method: 'POST', url: '/api/pages', payload: { title: 'nowhere' } });
  t.equal(withoutSpace.statusCode, 201, 'the owner without space_id: created, as documented');
  const inbox = await ta.sql`select name from spaces where id = ${withoutSpace.json().space_id}`;
  t.equal(inbox[0]?.name, 'Inbox', 'in the Inbox space');

  const task = doc.paths['/api/tasks'].post.requestBody?.content?.['application/json']?.schema as {
    properties: { due_at: unknown };
  };
  t.match(
    JSON.stringify(task.properties.due_at),
    /"format":"date".*|"format":"date-time"/,
    'due_at takes dates',
  );
  t.match(JSON.stringify(task.properties.due_at), /"format":"date"[,}]/, 'plain dates included');
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

  // Opened from another machine over plain HTTP: the page's scripts must load from the same http origin.
  const headers = { host: 'hub.lan:8080' };
  let lan = await ta.anon({ method: 'GET', url: '/api/docs', headers });
  for (let hops = 0; lan.statusCode >= 300 && lan.statusCode < 400 && hops < 3; hops++) {
    const url = new URL(String(lan.headers.location), 'http://hub.lan:8080/api/docs').pathname;
    lan = await ta.anon({ method: 'GET', url, headers });
  }
  t.equal(lan.statusCode, 200);
  t.match(lan.body, /swagger-ui/i);
  const csp = String(lan.headers['content-security-policy']);
  t.match(csp, /script-src 'self'/, 'scripts from the page origin');
  t.notMatch(csp, /upgrade-insecure-requests/, 'not upgraded to https (blank page over plain HTTP)');
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
