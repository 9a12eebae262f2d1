import t from 'tap';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';

t.test('owner manages spaces', async (t) => {
  const ta = await testApp(t);
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/spaces',
    payload: { name: '  Home lab ', description: 'racks' },
  });
  t.equal(created.statusCode, 201);
  const space = created.json();
  t.equal(space.name, 'Home lab');
  t.match(space.created_at, /^\d{4}-\d\d-\d\dT/);

  const duplicate = await ta.asOwner({ method: 'POST', url: '/api/spaces', payload: { name: 'home LAB' } });
  t.equal(duplicate.statusCode, 409, 'names are unique regardless of case');

  const blank = await ta.asOwner({ method: 'POST', url: '/api/spaces', payload: { name: '   ' } });
  t.equal(blank.statusCode, 400);
  const extra = await ta.asOwner({
    method: 'POST',
    url: '/api/spaces',
    payload: { name: 'x', colour: 'red' },
  });
  t.equal(extra.statusCode, 400, 'unknown fields are refused, not dropped');

  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/spaces/${space.id}`,
    payload: { description: 'two racks' },
  });
  t.equal(patched.json().description, 'two racks');

  await createSpace(ta, 'Archive');
  const list = await ta.asOwner({ method: 'GET', url: '/api/spaces?limit=1' });
  t.same(
    { ...list.json(), items: list.json().items.map((s: { name: string }) => s.name) },
    { items: ['Archive'], total: 2, limit: 1, offset: 0 },
  );

  const badId = await ta.asOwner({ method: 'GET', url: '/api/spaces/not-a-uuid' });
  t.equal(badId.statusCode, 400);
  const missing = await ta.asOwner({
    method: 'GET',
    url: '/api/spaces/00000000-0000-4000-8000-000000000000',
  });
  t.equal(missing.statusCode, 404);

  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${space.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${space.id}` })).statusCode, 404);
});

t.test('agents read only the spaces in their scope and never write them', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const scoped = await createAgent(ta, { tier: 'owner', space_id: home.id });
  const global = await createAgent(ta, { tier: 'read' });

  const scopedList = await ta.asAgent(scoped.token, { method: 'GET', url: '/api/spaces' });
  t.same(
    scopedList.json().items.map((s: { id: string }) => s.id),
    [home.id],
  );
  t.equal(scopedList.json().total, 1);
  t.equal((await ta.asAgent(scoped.token, { method: 'GET', url: `/api/spaces/${work.id}` })).statusCode, 404);
  t.equal((await ta.asAgent(scoped.token, { method: 'GET', url: `/api/spaces/${home.id}` })).statusCode, 200);

  const globalList = await ta.asAgent(global.token, { method: 'GET', url: '/api/spaces' });
  t.equal(globalList.json().total, 2);

  const write = await ta.asAgent(scoped.token, {
    method: 'POST',
    url: '/api/spaces',
    payload: { name: 'Mine' },
  });
  t.equal(write.statusCode, 403, "space management is the owner's");
  t.equal((await ta.anon({ method: 'GET', url: '/api/spaces' })).statusCode, 401);

  const scopeDelete = await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${home.id}` });
  t.equal(
    scopeDelete.statusCode,
    409,
    "a space that scopes an agent cannot vanish and widen the agent's reach",
  );
});
