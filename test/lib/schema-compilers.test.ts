import t from 'tap';
import { buildSerializer, buildValidator } from '../../lib/schema-compilers.ts';

const schema = { type: 'object', properties: { name: { type: 'string' } } };
const route = { schema, method: 'GET', url: '/x', httpStatus: '200' };
const ajvOptions = { customOptions: {} };

t.test('a schema is compiled once per process, whichever app asks', async (t) => {
  const first = buildSerializer({}, {})(route);
  const second = buildSerializer({}, {})(route);
  t.equal(first, second, 'a second app gets the serializer compiled for the first');
  t.equal(first({ name: 'a', extra: 1 }), '{"name":"a"}');
  const copy = buildSerializer({}, {})({ ...route, schema: structuredClone(schema) });
  t.not(copy, first, 'another schema object is compiled on its own');
  const withShared = buildSerializer({ shared: { $id: 'shared', type: 'string' } }, {})(route);
  t.not(withShared, first, 'other shared schemas compile apart');

  const validate = buildValidator({}, ajvOptions as never)({ schema } as never);
  t.equal(buildValidator({}, ajvOptions as never)({ schema } as never), validate);
  t.equal(validate('not an object'), false, 'and it validates');
});
