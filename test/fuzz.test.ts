// No input makes a 5xx: hostile values are sent to every operation of the OpenAPI document (so a route added later
// is fuzzed without being named here) and to every tool of the tool protocol. Each response must be below 500, carry
// no stack trace, SQL or file path, name a catalogued code, and use a status the document lists for the operation;
// the process must stay healthy afterwards. Seeded: a failure prints the seed and the case, and
// `FUZZ_SEED=<seed> npx tap test/fuzz.test.ts` replays it; FUZZ_RUNS sets the cases per operation.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import t from 'tap';
import { isErrorCode } from '../lib/errors.ts';
import { fakeOpenMeteo } from './domains/dashboard/fakes.ts';
import { createSpace, ownerToken, testApp } from './helpers/app.ts';
import { servedOpenApi } from './helpers/openapi.ts';
import { repoRoot } from './helpers/process.ts';

const seed = Number(process.env.FUZZ_SEED ?? 20261205);
const runs = Number(process.env.FUZZ_RUNS ?? 30);
const webhookSecret = 'fuzz-webhook-secret-0123456789abcdef';

type Schema = { [key: string]: unknown };
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, unknown> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
}

// Large values stand in the cases as tokens, so a failing case prints short; they are expanded when sent.
const megabyte = '<a 1 MB string>';
const deep = '<JSON nested 5000 deep>';
const expansions: [string, string][] = [
  [JSON.stringify(deep), `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
  [deep, `${'['.repeat(5_000)}${']'.repeat(5_000)}`],
  [megabyte, 'x'.repeat(1_000_000)],
];
function expand(text: string): string {
  return expansions.reduce((result, [token, value]) => result.replaceAll(token, value), text);
}
const hostileStrings = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '99999999999999999999',
  '-99999999999999999999',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e400',
  '-1',
  '0',
  '2024-12-31T23:59:60Z',
  '2026-02-30',
  '2026-12-05',
  '2026-12-05T10:00:00+25:00',
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  "' or 1=1; drop table spaces; --",
  '__proto__',
  'constructor',
  '../../../../etc/passwd',
  '%00',
  '',
  ' ',
  '\u202e😀\u0301',
  'http://169.254.169.254/latest/meta-data/',
  megabyte,
];
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...hostileStrings) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(null, true, -1, 0, 1.5, 1e308, -1e308, 2 ** 64, [], {}, [null], {
      a: { b: '\u0000' },
    }),
  },
  { weight: 1, arbitrary: fc.constant(deep) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);
/** Bodies no schema describes: malformed JSON, prototype keys, nesting, and the wrong media types. */
const rawBodies: fc.Arbitrary<{ payload: string; contentType: string }> = fc.record({
  payload: fc.constantFrom(
    '{"a":',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    `{"value":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    '{"metadata":{"a":"\\u0000"}}',
    '{"title":"\\ud800"}',
    'null',
    '[]',
    '"text"',
    '1e400',
    '',
    '\u0000',
    '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc',
  ),
  contentType: fc.constantFrom(
    'application/json',
    'application/json; charset=utf-16',
    'text/plain',
    'application/xml',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=x',
    'multipart/form-data; boundary=y',
  ),
});

/** Where a body could leak what a client must never see. */
const leaks: [string, RegExp][] = [
  ['a stack trace', /\bat [\w$.<>]+ \(|\n\s+at \S/],
  ['a source position', /\.(?:ts|js|mjs):\d+:\d+/],
  ['a file path', new RegExp(`${repoRoot.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|node_modules|file://`)],
  [
    'SQL or a database message',
    /syntax error at or near|violates (?:unique|foreign key|check|not-null) constraint|duplicate key value|invalid input syntax for type|invalid byte sequence for encoding|relation "\w+"|column "\w+"|\bpg_\w+|\bselect\b[^"]+\bfrom\b/i,
  ],
];

function resolve(schema: Schema | undefined, doc: Document): Schema {
  let current = schema ?? {};
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    current = doc.components?.schemas?.[(current.$ref as string).split('/').pop() as string] ?? {};
  }
  return current;
}

/** A value the schema accepts, as far as a generic reading can tell: the baseline hostile fields are mixed into. */
function sample(raw: Schema | undefined, doc: Document, ids: string[], depth = 0): unknown {
  const schema = resolve(raw, doc);
  if (depth > 6) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('default' in schema) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) return sample(schema[key][0] as Schema, doc, ids, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((part) => sample(part as Schema, doc, ids, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'object' || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    return Object.fromEntries(
      Object.entries(properties).map(([name, inner]) => [name, sample(inner, doc, ids, depth + 1)]),
    );
  }
  if (type === 'array') return [];
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? schema.minimum : 1;
  if (type === 'boolean') return false;
  if (type === 'null') return null;
  if (schema.format === 'uuid') return ids[0];
  if (schema.format === 'date-time') return '2026-12-05T10:00:00Z';
  if (schema.format === 'date') return '2026-12-05';
  if (schema.format === 'uri' || schema.format === 'url' || schema.format === 'web-url')
    return 'https://example.com/';
  if (schema.format === 'ipv4') return '192.0.2.10';
  if (schema.format === 'ipv6') return '2001:db8::10';
  if (schema.format === 'email') return 'owner@example.com';
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test('fuzz')) return undefined;
  return 'fuzz';
}

/** A field's value: mostly what the schema wants (so the hostile fields beside it get through), or hostile. */
function field(schema: Schema | undefined, doc: Document, ids: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(sample(schema, doc, ids), ...ids) },
    { weight: 3, arbitrary: hostileValue },
  );
}

/** Query and path text as a client would send it: lone surrogates become the invalid UTF-8 they would be. */
function encode(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return text.isWellFormed() ? encodeURIComponent(expand(text)) : '%ED%A0%80';
}

interface Case {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body:
    | { kind: 'none' }
    | { kind: 'json'; value: unknown }
    | { kind: 'raw'; payload: string; contentType: string }
    | { kind: 'multipart'; fields: [string, string, string | null][]; boundary: string; cut: boolean };
  anonymous: boolean;
}

function caseOf(method: string, operation: Operation, doc: Document, ids: string[]): fc.Arbitrary<Case> {
  const params = operation.parameters ?? [];
  const pathArb = fc.record(
    Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, field(p.schema, doc, ids)])),
  );
  const queryArb = fc.record(
    Object.fromEntries(
      params.filter((p) => p.in === 'query').map((p) => [p.name, fc.option(field(p.schema, doc, ids))]),
    ),
  );
  const content = operation.requestBody?.content ?? {};
  const bodies: fc.Arbitrary<Case['body']>[] = [];
  if (content['application/json']) {
    const schema = resolve(content['application/json'].schema, doc);
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const fields = fc.record(
      Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, field(inner, doc, ids)])),
      { requiredKeys: [] },
    );
    bodies.push(fields.map((value) => ({ kind: 'json' as const, value })));
    bodies.push(hostileValue.map((value) => ({ kind: 'json' as const, value })));
  }
  if (content['multipart/form-data']) {
    const names = Object.keys(
      (resolve(content['multipart/form-data'].schema, doc).properties ?? {}) as object,
    );
    const part = fc.tuple(
      fc.oneof(fc.constantFrom(...names), fc.constantFrom('a\u0000b', '', '__proto__')),
      fc.oneof(fc.constantFrom(...ids, 'hello', ''), fc.constantFrom(...hostileStrings)),
      fc.option(fc.constantFrom('a.txt', 'a\u0000.txt', '../../etc/passwd', 'x.pdf')),
    );
    bodies.push(
      fc.record({
        kind: fc.constant('multipart' as const),
        fields: fc.array(part, { maxLength: 4 }),
        boundary: fc.constantFrom('x', 'y'),
        cut: fc.boolean(),
      }),
    );
  }
  if (method !== 'get' && method !== 'delete') {
    bodies.push(rawBodies.map((raw) => ({ kind: 'raw' as const, ...raw })));
  }
  if (bodies.length === 0) bodies.push(fc.constant({ kind: 'none' as const }));
  return fc.record({
    path: pathArb,
    query: queryArb,
    body: fc.oneof(...bodies),
    anonymous: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  });
}

function multipartBody(body: Extract<Case['body'], { kind: 'multipart' }>): string {
  let text = '';
  for (const [name, value, filename] of body.fields) {
    const file = filename === null || filename === undefined ? '' : `; filename="${filename}"`;
    text += `--x\r\nContent-Disposition: form-data; name="${name}"${file}\r\n`;
    text += `${file ? 'Content-Type: text/plain\r\n' : ''}\r\n${String(value)}\r\n`;
  }
  text += '--x--\r\n';
  return body.cut ? text.slice(0, Math.floor(text.length / 2)) : text;
}

async function within<T>(promise: Promise<T>, label: string, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${label} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why a response is wrong, or null. */
function problemOf(
  response: LightMyRequestResponse,
  documented: string[] | null,
  state: number | null = null,
): string | null {
  if (response.statusCode >= 500 && response.statusCode !== state)
    return `answered ${response.statusCode}: ${response.body.slice(0, 300)}`;
  for (const [what, pattern] of leaks) {
    if (pattern.test(response.body)) return `leaks ${what}: ${response.body.slice(0, 300)}`;
  }
  if (response.statusCode >= 400 && /json/.test(String(response.headers['content-type']))) {
    const body = response.json() as { code?: unknown; statusCode?: unknown };
    if (body.statusCode !== undefined && !isErrorCode(body.code))
      return `sent an uncatalogued code ${body.code}`;
  }
  if (documented && !documented.includes(String(response.statusCode)) && !documented.includes('default')) {
    return `answered ${response.statusCode}, which its OpenAPI entry does not list (${documented.join(', ')})`;
  }
  return null;
}

t.test('hostile input to every operation of the OpenAPI document answers below 500', async (t) => {
  // The weather card's upstream is a fake Open-Meteo on loopback: a place asked for is fetched, never from outside.
  const meteo = await fakeOpenMeteo(t);
  const ta = await testApp(t, { env: { WEBHOOK_SECRET: webhookSecret, WEATHER_URL: meteo.url } });
  const space = await createSpace(ta);
  const project = await ta.asOwner({
    method: 'POST',
    url: '/api/projects',
    payload: { space_id: space.id, name: 'p' },
  });
  const page = await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'p' },
  });
  const ids = [space.id, project.json().id as string, page.json().id as string];

  const doc = await servedOpenApi<Document>(ta);
  const operations = Object.entries(doc.paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    )
    .filter(({ operation }) =>
      // A stream never ends: nothing to wait for.
      Object.values(operation.responses ?? {}).every(
        (response) => !Object.keys(response.content ?? {}).some((media) => media.includes('event-stream')),
      ),
    )
    .sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
  t.ok(operations.length > 50, `${operations.length} operations read from the document`);
  t.comment(`seed ${seed}, ${runs} cases per operation (FUZZ_SEED, FUZZ_RUNS)`);

  let sent = 0;
  for (const [index, { path, method, operation }] of operations.entries()) {
    // Hostile sign-ins and metrics tokens count as guesses against this one address; the lockout they would reach is
    // test/plugins/guessing.test.ts's subject, not this one's, so each operation starts with a clean count.
    await ta.sql`delete from auth_failures`;
    const documented = Object.keys(operation.responses ?? {});
    // A 5xx the plain request gets too is the route's state (readiness while the worker is off), not the input's.
    const plain = await ta.asOwner({
      method: method.toUpperCase() as 'GET',
      url: path.replace(/\{[^}]+\}/g, ids[0]),
    });
    const state = plain.statusCode >= 500 ? plain.statusCode : null;
    if (state) t.comment(`${method.toUpperCase()} ${path} answers ${state} to a plain request: its state`);
    const signed = operation.parameters?.some((p) => p.in === 'header' && p.name === 'x-hub-signature-256');
    const property = fc.asyncProperty(caseOf(method, operation, doc, ids), async (c) => {
      const url =
        path.replace(/\{([^}]+)\}/g, (_all, name: string) => encode(c.path[name])) +
        `?${Object.entries(c.query)
          .filter(([, value]) => value !== null)
          .map(([name, value]) => `${name}=${encode(value)}`)
          .join('&')}`;
      const headers: Record<string, string> = c.anonymous ? {} : { authorization: `Bearer ${ownerToken}` };
      let payload: string | undefined;
      if (c.body.kind === 'json') {
        payload = expand(JSON.stringify(c.body.value) ?? 'null');
        headers['content-type'] = 'application/json';
      } else if (c.body.kind === 'raw') {
        payload = c.body.payload;
        headers['content-type'] = c.body.contentType;
      } else if (c.body.kind === 'multipart') {
        payload = expand(multipartBody(c.body));
        headers['content-type'] = `multipart/form-data; boundary=${c.body.boundary}`;
      }
      if (signed && payload !== undefined) {
        headers['x-hub-signature-256'] =
          `sha256=${createHmac('sha256', webhookSecret).update(payload).digest('hex')}`;
      }
      const label = `${method.toUpperCase()} ${url.slice(0, 200)}`;
      const response = await within(
        ta.app.inject({ method: method.toUpperCase() as 'GET', url, headers, payload }),
        label,
      );
      sent++;
      const problem = problemOf(response, documented, state);
      if (problem) throw new Error(`${label} ${problem}`);
    });
    await fc.assert(property, { seed: seed + index, numRuns: runs, endOnFailure: true });
  }
  t.comment(`${sent} requests sent`);

  // The tool protocol: hostile arguments to every tool it lists.
  const call = (body: unknown) =>
    ta.asOwner({
      method: 'POST',
      url: '/api/mcp',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: expand(JSON.stringify(body)),
    });
  const listed = await call({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const tools = (listed.json().result.tools as { name: string; inputSchema: Schema }[]).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  t.ok(tools.length > 5, `${tools.length} tools listed`);
  for (const [index, tool] of tools.entries()) {
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
    const args = fc.record(
      Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, field(inner, doc, ids)])),
      { requiredKeys: [] },
    );
    const property = fc.asyncProperty(args, async (value) => {
      const response = await within(
        call({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool.name, arguments: value } }),
        `tool ${tool.name}`,
      );
      const problem = problemOf(response, null);
      if (problem) throw new Error(`tool ${tool.name} ${problem}`);
      const result = response.statusCode === 200 ? response.json().result : undefined;
      const text = result?.isError ? String(result.content?.[0]?.text) : '';
      if (/^5\d\d /.test(text)) throw new Error(`tool ${tool.name} failed inside: ${text.slice(0, 300)}`);
    });
    await fc.assert(property, { seed: seed + 1000 + index, numRuns: runs, endOnFailure: true });
  }

  // Still healthy: alive, and a write and a read go through the same pool.
  t.equal((await ta.anon({ method: 'GET', url: '/api/healthz' })).statusCode, 200, 'healthz is 200');
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/spaces',
    payload: { name: 'after the fuzz' },
  });
  t.equal(created.statusCode, 201, 'a write succeeds afterwards');
  const read = await ta.asOwner({ method: 'GET', url: `/api/spaces/${created.json().id}` });
  t.equal(read.json().name, 'after the fuzz', 'and reads back');
  t.equal(({} as { polluted?: boolean }).polluted, undefined, 'no prototype was polluted');
});

/** The body's top-level `*_id` fields pointed at a row of the kind they name, where the test made one. */
function pointed(value: unknown, idsByKind: Record<string, string>): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, inner]) => {
      const kind = name === 'parent_id' ? 'page' : name.replace(/_id$/, '');
      return [name, name.endsWith('_id') && idsByKind[kind] ? idsByKind[kind] : inner];
    }),
  );
}

/** A 400 that says the field is needed: its message names the field, or a body taken with the field is refused. */
function needs(name: string, full: number, without: { status: number; message: string }): boolean {
  return without.status === 400 && (full !== 400 || new RegExp(`\\b${name}\\b`).test(without.message));
}

/** Optional fields whose description says when they are needed after all ("required for an http check"). */
function conditional(schema: Schema | undefined): boolean {
  return /\brequired (when|for|with)\b/i.test(String(schema?.description ?? ''));
}

/** The optional fields of an object schema, less those its description makes conditional. */
function optionalFields(schema: Schema, doc: Document): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.keys(properties).filter(
    (name) => !required.has(name) && !conditional(resolve(properties[name], doc)),
  );
}

t.test('leaving out a field the document calls optional never makes a request invalid', async (t) => {
  const ta = await testApp(t, { env: { WEBHOOK_SECRET: webhookSecret } });
  const space = await createSpace(ta);
  const made = async (url: string, payload: Record<string, unknown>) =>
    (await ta.asOwner({ method: 'POST', url, payload })).json().id as string;
  const idsByKind: Record<string, string> = { space: space.id };
  idsByKind.project = await made('/api/projects', { space_id: space.id, name: 'p' });
  idsByKind.page = await made('/api/pages', { space_id: space.id, title: 'p' });
  idsByKind.ref = await made('/api/refs', { space_id: space.id, source: 'web', external_id: 'r' });
  idsByKind.resource = await made('/api/resources', { space_id: space.id, name: 'r' });
  const ids = Object.values(idsByKind);
  const doc = await servedOpenApi<Document>(ta);

  const problems: string[] = [];
  let omitted = 0;
  /** Sends the full sample once, then once without each optional field; records each refusal that names it. */
  const leaveOut = async (
    what: string,
    schema: Schema,
    send: (body: Record<string, unknown>) => Promise<{ status: number; message: string }>,
  ) => {
    const optional = optionalFields(schema, doc);
    if (optional.length === 0) return;
    const full = pointed(sample(schema, doc, ids), idsByKind) as Record<string, unknown>;
    const fullStatus = (await send(full)).status;
    for (const name of optional) {
      const { [name]: _left, ...rest } = full;
      const without = await send(rest);
      omitted++;
      if (needs(name, fullStatus, without)) problems.push(`${what} without ${name}: ${without.message}`);
    }
  };

  for (const [path, methods] of Object.entries(doc.paths).sort(([a], [b]) => a.localeCompare(b))) {
    for (const [method, operation] of Object.entries(methods)) {
      const schema = resolve(operation.requestBody?.content?.['application/json']?.schema, doc);
      const url = path.replace(/\{[^}]+\}/g, ids[0]);
      await leaveOut(`${method.toUpperCase()} ${path}`, schema, async (payload) => {
        const response = await within(
          ta.asOwner({ method: method.toUpperCase() as 'POST', url, payload }),
          `${method.toUpperCase()} ${url}`,
        );
        const message = response.statusCode === 400 ? String(response.json().message) : '';
        return { status: response.statusCode, message };
      });
    }
  }

  // The tools: each optional argument left out once.
  const rpc = (payload: unknown) =>
    ta.asOwner({
      method: 'POST',
      url: '/api/mcp',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: payload as Record<string, unknown>,
    });
  const listed = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  for (const tool of listed.json().result.tools as { name: string; inputSchema: Schema }[]) {
    await leaveOut(`tool ${tool.name}`, tool.inputSchema, async (args) => {
      const response = await rpc({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: tool.name, arguments: args },
      });
      const result = response.json().result as { isError?: boolean; content?: { text?: string }[] };
      const text = result?.isError ? String(result.content?.[0]?.text) : '';
      return { status: /^400 /.test(text) ? 400 : 200, message: text };
    });
  }
  t.ok(omitted > 100, `${omitted} requests each left one optional field out`);
  t.same(problems, [], 'no optional field is needed after all');
});
