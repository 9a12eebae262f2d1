import t from 'tap';
import {
  applyEntityWrite,
  entityTypes,
  isEntityType,
  upsertableTypes,
} from '../../domains/entities/registry.ts';
import { hub } from '../../modules.ts';
import type { Principal } from '../../plugins/auth.ts';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';

const owner: Principal = { kind: 'owner', via: 'token' };
const { entities } = hub;

t.test('the registry applies every write of the six entity types in a transaction', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  t.same([...entityTypes], ['page', 'project', 'task', 'ref', 'resource', 'source_doc', 'app']);
  t.ok(isEntityType('source_doc'));
  t.notOk(isEntityType('space'));
  t.notOk(isEntityType(42));
  t.same(upsertableTypes(entities), ['ref']);

  const payloads = {
    page: { space_id: space.id, title: 'p' },
    project: { space_id: space.id, name: 'proj' },
    ref: { space_id: space.id, source: 'web', external_id: 'x' },
    resource: { space_id: space.id, name: 'r' },
    source_doc: { space_id: space.id, title: 'd', content: 'text' },
  };
  const patches = {
    page: { title: 'p2' },
    project: { name: 'proj2' },
    ref: { title: 'x2' },
    resource: { notes: 'n2' },
    source_doc: { title: 'd2' },
    task: { title: 't2' },
  };
  const ids: Record<string, string> = {};
  for (const [type, payload] of Object.entries(payloads)) {
    const created = await applyEntityWrite(
      ta.sql,
      { entity_type: type as keyof typeof payloads, action: 'create', payload },
      { principal: owner, entities },
    );
    t.equal(created.entity_id, (created.entity as { id: string }).id, `${type} created`);
    ids[type] = created.entity_id;
  }
  const task = await applyEntityWrite(
    ta.sql,
    { entity_type: 'task', action: 'create', payload: { project_id: ids.project, title: 't' } },
    { principal: owner, entities },
  );
  ids.task = task.entity_id;
  for (const [type, patch] of Object.entries(patches)) {
    const updated = await applyEntityWrite(
      ta.sql,
      { entity_type: type as keyof typeof patches, action: 'update', entity_id: ids[type], payload: patch },
      { principal: owner, entities },
    );
    t.match(updated.entity, patch, `${type} updated`);
  }
  for (const type of ['task', 'page', 'project', 'ref', 'resource', 'source_doc'] as const) {
    const deleted = await applyEntityWrite(
      ta.sql,
      { entity_type: type, action: 'delete', entity_id: ids[type] },
      { principal: owner, entities },
    );
    t.equal(deleted.entity_id, ids[type], `${type} deleted`);
  }
  const counts = await ta.sql`
    select (select count(*) from pages) + (select count(*) from projects) + (select count(*) from tasks)
         + (select count(*) from refs) + (select count(*) from resources) + (select count(*) from source_docs) as n`;
  t.equal(Number(counts[0].n), 0);
});

t.test('the registry refuses what does not apply, with HTTP-style errors', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const ctx = { principal: owner, entities };
  await t.rejects(
    applyEntityWrite(
      ta.sql,
      { entity_type: 'page', action: 'upsert', payload: { space_id: space.id, title: 'x' } },
      ctx,
    ),
    { statusCode: 422, message: /entity type page does not support upsert/ },
  );
  await t.rejects(applyEntityWrite(ta.sql, { entity_type: 'resource', action: 'upsert', payload: {} }, ctx), {
    statusCode: 422,
    message: /resource/,
  });
  await t.rejects(
    applyEntityWrite(
      ta.sql,
      { entity_type: 'space' as 'page', action: 'create', payload: { name: 'x' } },
      ctx,
    ),
    { statusCode: 400, message: /unknown entity type/ },
  );
  await t.rejects(
    applyEntityWrite(ta.sql, { entity_type: 'page', action: 'archive' as 'create', payload: {} }, ctx),
    { statusCode: 400, message: /unknown action/ },
  );
  await t.rejects(
    applyEntityWrite(ta.sql, { entity_type: 'page', action: 'update', payload: { title: 'x' } }, ctx),
    { statusCode: 400, message: /entity_id/ },
  );
  // A payload stored earlier is checked again at apply time, like the route checks it.
  await t.rejects(
    applyEntityWrite(
      ta.sql,
      { entity_type: 'page', action: 'create', payload: { space_id: space.id, title: 'x', colour: 'red' } },
      ctx,
    ),
    { statusCode: 400, message: /invalid page/ },
  );
  await t.rejects(
    applyEntityWrite(
      ta.sql,
      { entity_type: 'ref', action: 'upsert', payload: { space_id: 'nope', source: 's' } },
      ctx,
    ),
    { statusCode: 400, message: /invalid ref/ },
  );
  await t.rejects(
    applyEntityWrite(
      ta.sql,
      {
        entity_type: 'task',
        action: 'update',
        entity_id: '00000000-0000-4000-8000-000000000000',
        payload: { title: 'x' },
      },
      ctx,
    ),
    { statusCode: 404, message: /task not found/ },
  );
  const upserted = await applyEntityWrite(
    ta.sql,
    { entity_type: 'ref', action: 'upsert', payload: { space_id: space.id, source: 's', external_id: '1' } },
    ctx,
  );
  t.equal(upserted.created, true);
  await t.rejects(
    applyEntityWrite(
      ta.sql,
      {
        entity_type: 'ref',
        action: 'create',
        payload: { space_id: space.id, source: 's', external_id: '1' },
      },
      ctx,
    ),
    { code: '23505' },
    'a duplicate identity is a unique violation (409 over HTTP)',
  );
  const [count] = await ta.sql`select count(*)::int as n from pages`;
  t.equal(count.n, 0, 'nothing half-written');
});

t.test('a refused write changes nothing', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const parent = await applyEntityWrite(
    ta.sql,
    { entity_type: 'page', action: 'create', payload: { space_id: space.id, title: 'parent' } },
    { principal: owner, entities },
  );
  const child = await applyEntityWrite(
    ta.sql,
    {
      entity_type: 'page',
      action: 'create',
      payload: { space_id: space.id, parent_id: parent.entity_id, title: 'c' },
    },
    { principal: owner, entities },
  );
  // The rename rides along with a move under the page's own child: the whole patch is refused.
  await t.rejects(
    applyEntityWrite(
      ta.sql,
      {
        entity_type: 'page',
        action: 'update',
        entity_id: parent.entity_id,
        payload: { title: 'renamed', parent_id: child.entity_id },
      },
      { principal: owner, entities },
    ),
    { statusCode: 409, message: /descendants/ },
  );
  const [row] = await ta.sql`select title, parent_id from pages where id = ${parent.entity_id}`;
  t.same(row, { title: 'parent', parent_id: null });
});

t.test('owner-tier agents write only inside their scope; the context decides', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const scoped: Principal = {
    kind: 'agent',
    agentId: '00000000-0000-4000-8000-000000000001',
    name: 'a',
    tier: 'owner',
    spaceId: home.id,
    tokenId: '00000000-0000-4000-8000-000000000002',
    conversationId: null,
  };
  await t.rejects(
    applyEntityWrite(
      ta.sql,
      { entity_type: 'project', action: 'create', payload: { space_id: work.id, name: 'x' } },
      { principal: scoped, entities },
    ),
    { statusCode: 404, code: 'SPACE_NOT_FOUND' },
  );
  const made = await applyEntityWrite(
    ta.sql,
    { entity_type: 'project', action: 'create', payload: { space_id: home.id, name: 'x' } },
    { principal: scoped, entities },
  );
  t.match(made.entity, { space_id: home.id });
});

t.test('a space with content is deleted only with cascade=true', async (t) => {
  const ta = await testApp(t);
  const kinds: [string, (spaceId: string) => Promise<unknown>][] = [
    ['page', (id) => ta.sql`insert into pages (space_id, title) values (${id}, 'p')`],
    ['project', (id) => ta.sql`insert into projects (space_id, name) values (${id}, 'p')`],
    ['ref', (id) => ta.sql`insert into refs (space_id, source, external_id) values (${id}, 's', ${id})`],
    ['source doc', (id) => ta.sql`insert into source_docs (space_id, origin) values (${id}, 'upload')`],
    ['resource', (id) => ta.sql`insert into resources (space_id, name) values (${id}, 'r')`],
    ['conversation', (id) => ta.sql`insert into conversations (space_id) values (${id})`],
  ];
  for (const [what, fill] of kinds) {
    const space = await createSpace(ta);
    await fill(space.id);
    const refused = await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${space.id}` });
    t.equal(refused.statusCode, 409, `a space with a ${what} is kept`);
    t.match(refused.json().message, /cascade=true/);
    const gone = await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${space.id}?cascade=true` });
    t.equal(gone.statusCode, 204, `cascade removes the space with its ${what}`);
  }
  const left = await ta.sql`
    select (select count(*) from pages) + (select count(*) from projects) + (select count(*) from refs)
         + (select count(*) from source_docs) + (select count(*) from resources)
         + (select count(*) from conversations) as n`;
  t.equal(Number(left[0].n), 0, 'the content went with its spaces');

  const empty = await createSpace(ta);
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${empty.id}` })).statusCode, 204);

  const scopedSpace = await createSpace(ta);
  await ta.sql`insert into pages (space_id, title) values (${scopedSpace.id}, 'p')`;
  await createAgent(ta, { tier: 'read', space_id: scopedSpace.id });
  const scoped = await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${scopedSpace.id}?cascade=true` });
  t.equal(scoped.statusCode, 409, 'a space that scopes an agent stays, cascade or not');
  const [kept] = await ta.sql`select count(*)::int as n from pages where space_id = ${scopedSpace.id}`;
  t.equal(kept.n, 1, 'and keeps its content');
  t.equal(
    (
      await ta.asOwner({
        method: 'DELETE',
        url: '/api/spaces/00000000-0000-4000-8000-000000000000?cascade=true',
      })
    ).statusCode,
    404,
  );
});
