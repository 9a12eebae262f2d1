import t from 'tap';
import { schemaCompilers } from '../../lib/schema-compilers.ts';
import { testApp } from '../helpers/app.ts';

const schema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const route = { schema, method: 'GET', url: '/x', httpStatus: '200' };
const ajvOptions = { customOptions: {} };
type ValidatorRoute = Parameters<ReturnType<ReturnType<typeof schemaCompilers>['buildValidator']>>[0];
const validatorRoute = (of: object) =>
  ({ schema: of, method: 'POST', url: '/x', httpPart: 'body' }) as ValidatorRoute;

t.test('a schema is compiled once per process, whichever app asks', async (t) => {
  for (const at of ['first-use', 'build'] as const) {
    const { buildSerializer, buildValidator } = schemaCompilers(at);
    const serialize = buildSerializer({}, {})(route);
    t.equal(serialize({ name: 'a', extra: 1 }), '{"name":"a"}', `${at}: it serializes`);
    const first = schemaCompilers('build').buildSerializer({}, {})(route);
    const second = schemaCompilers('build').buildSerializer({}, {})(route);
    t.equal(first, second, 'a second app gets the serializer compiled for the first');
    const copy = schemaCompilers('build').buildSerializer(
      {},
      {},
    )({ ...route, schema: structuredClone(schema) });
    t.not(copy, first, 'another schema object is compiled on its own');
    const shared = schemaCompilers('build').buildSerializer(
      { shared: { $id: 'shared', type: 'string' } },
      {},
    )(route);
    t.not(shared, first, 'other shared schemas compile apart');

    const validate = buildValidator({}, ajvOptions as never)(validatorRoute(schema));
    t.equal(validate({ name: 'a' }), true, `${at}: a valid body passes`);
    t.equal(validate('not an object'), false, `${at}: an invalid one does not`);
    t.match(validate.errors, [{ keyword: 'type', message: 'must be object' }], `${at}: with Ajv's errors`);
    t.equal(validate({}), false);
    t.match(validate.errors, [{ keyword: 'required' }], 'the errors are the last call’s');
  }
});

t.test(
  'a route returning a shared schema compiled first leaves it for the routes referring to it',
  async (t) => {
    const item = { $id: 'Item', type: 'object', properties: { name: { type: 'string' } } };
    const list = { type: 'object', properties: { items: { type: 'array', items: { $ref: 'Item#' } } } };
    const { buildSerializer } = schemaCompilers('first-use');
    const serializers = buildSerializer({ Item: item }, {});
    const one = serializers({ ...route, schema: item });
    const many = serializers({ ...route, schema: list });
    t.equal(one({ name: 'a' }), '{"name":"a"}', 'the schema that is the shared one, used first');
    t.equal(
      many({ items: [{ name: 'b', extra: 1 }] }),
      '{"items":[{"name":"b"}]}',
      'then the one referring to it',
    );
  },
);

t.test('the service compiles a schema on its first use, a test at build', async (t) => {
  const refused = { type: 'object', properties: { name: { type: 'no-such-type' } } };
  const lazy = schemaCompilers('first-use').buildValidator({}, ajvOptions as never)(validatorRoute(refused));
  t.throws(() => lazy({ name: 'a' }), /type/, 'the refused schema is found when the route is first called');
  t.throws(
    () =>
      schemaCompilers('build').buildValidator(
        {},
        ajvOptions as never,
      )(validatorRoute(structuredClone(refused))),
    /type/,
    'and at once when compiled at build',
  );
  const badSerializer = { type: 'object', properties: { name: { $ref: '#/definitions/missing' } } };
  const lazySerialize = schemaCompilers('first-use').buildSerializer(
    {},
    {},
  )({ ...route, schema: badSerializer });
  t.throws(() => lazySerialize({ name: 'a' }), 'a serializer too');
  t.throws(() =>
    schemaCompilers('build').buildSerializer({}, {})({ ...route, schema: structuredClone(badSerializer) }),
  );
});

t.test("every route's request and response schemas compile", async (t) => {
  // What Fastify did at every build before compiling moved to first use: a schema Ajv or fast-json-stringify refuses
  // fails here rather than on an owner's first request.
  const { asOwner } = await testApp(t, { compileSchemas: 'build' });
  const spaces = await asOwner({ method: 'GET', url: '/api/spaces' });
  t.equal(spaces.statusCode, 200);
  const bad = await asOwner({ method: 'POST', url: '/api/spaces', payload: { description: 'no name' } });
  t.equal(bad.statusCode, 400, 'and validation answers as before');
});

t.test('a lazily compiled route answers a bad request as an eagerly compiled one does', async (t) => {
  const lazy = await testApp(t);
  const eager = await testApp(t, { compileSchemas: 'build' });
  const request = { method: 'POST' as const, url: '/api/spaces', payload: { description: 'no name' } };
  const [a, b] = await Promise.all([lazy.asOwner(request), eager.asOwner(request)]);
  t.equal(a.statusCode, 400);
  t.same(a.json(), b.json(), 'the same error body');
});
