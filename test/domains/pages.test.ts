import t from 'tap';
import { createAgent, createSpace, type TestApp, testApp } from '../helpers/app.ts';

interface PageBody {
  id: string;
  space_id: string;
  parent_id: string | null;
  position: number;
  title: string;
  body: string;
}

async function createPage(ta: TestApp, payload: Record<string, unknown>): Promise<PageBody> {
  const response = await ta.asOwner({ method: 'POST', url: '/api/pages', payload });
  if (response.statusCode !== 201) throw new Error(`creating a page failed: ${response.body}`);
  return response.json();
}

/** Titles of a sibling group in position order, with their positions. */
async function group(ta: TestApp, spaceId: string, parentId: string | null) {
  const rows = await ta.sql<{ title: string; position: number }[]>`
    select title, position from pages where space_id = ${spaceId} and parent_id is not distinct from ${parentId}
    order by position`;
  return rows.map((row) => `${row.position}:${row.title}`);
}

t.test('owner creates, reads, edits and deletes pages', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: '  Runbook ', body: '# Steps' },
  });
  t.equal(created.statusCode, 201);
  const page = created.json();
  t.match(page, { space_id: space.id, parent_id: null, position: 0, title: 'Runbook', body: '# Steps' });

  const read = await ta.asOwner({ method: 'GET', url: `/api/pages/${page.id}` });
  t.equal(read.statusCode, 200);
  t.equal(read.json().title, 'Runbook');

  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${page.id}`,
    payload: { title: 'Runbook v2', body: 'new body' },
  });
  t.equal(patched.statusCode, 200);
  t.match(patched.json(), { title: 'Runbook v2', body: 'new body', position: 0 });

  for (const payload of [
    { space_id: space.id, title: '   ' },
    { space_id: space.id, title: 'x', colour: 'red' },
    { space_id: space.id, title: 'x', position: -1 },
  ]) {
    const bad = await ta.asOwner({ method: 'POST', url: '/api/pages', payload });
    t.equal(bad.statusCode, 400, `refused: ${JSON.stringify(payload)}`);
  }
  const unplaced = await ta.asOwner({ method: 'POST', url: '/api/pages', payload: { title: 'no space' } });
  t.equal(unplaced.statusCode, 201, 'a page without a space_id is created');
  const [inbox] = await ta.sql`select name from spaces where id = ${unplaced.json().space_id}`;
  t.equal(inbox.name, 'Inbox', 'in the Inbox space, where captures without a space go');
  const emptyPatch = await ta.asOwner({ method: 'PATCH', url: `/api/pages/${page.id}`, payload: {} });
  t.equal(emptyPatch.statusCode, 400, 'a patch names at least one field');
  const noSpace = await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: '00000000-0000-4000-8000-000000000000', title: 'x' },
  });
  t.equal(noSpace.statusCode, 404);

  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/pages/${page.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/pages/${page.id}` })).statusCode, 404);
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/pages/${page.id}` })).statusCode, 404);
  t.equal(
    (await ta.asOwner({ method: 'PATCH', url: `/api/pages/${page.id}`, payload: { title: 'x' } })).statusCode,
    404,
  );
  t.equal((await ta.anon({ method: 'GET', url: '/api/pages' })).statusCode, 401);
});

t.test('lists paginate and filter by space and parent', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const root = await createPage(ta, { space_id: home.id, title: 'Root' });
  for (const title of ['C', 'A', 'B']) await createPage(ta, { space_id: home.id, parent_id: root.id, title });
  await createPage(ta, { space_id: work.id, title: 'Elsewhere' });

  const all = await ta.asOwner({ method: 'GET', url: '/api/pages' });
  t.equal(all.json().total, 5);
  const inHome = await ta.asOwner({ method: 'GET', url: `/api/pages?space_id=${home.id}&limit=2&offset=1` });
  t.same(
    { ...inHome.json(), items: inHome.json().items.map((p: PageBody) => p.title) },
    { items: ['C', 'A'], total: 4, limit: 2, offset: 1 },
    'root first, then the children by position (creation order)',
  );
  const children = await ta.asOwner({ method: 'GET', url: `/api/pages?parent_id=${root.id}` });
  t.same(
    children.json().items.map((p: PageBody) => p.title),
    ['C', 'A', 'B'],
  );
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/pages?limit=101' })).statusCode, 400);
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/pages?space_id=nope' })).statusCode, 400);
});

t.test('a space lists its pages by position then title, flat or as a tree', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const guide = await createPage(ta, { space_id: space.id, title: 'Guide' });
  const intro = await createPage(ta, { space_id: space.id, title: 'Intro', position: 0 });
  const install = await createPage(ta, { space_id: space.id, parent_id: guide.id, title: 'Install' });
  await createPage(ta, { space_id: space.id, parent_id: guide.id, title: 'Configure', position: 0 });
  await createPage(ta, { space_id: space.id, parent_id: install.id, title: 'Linux' });

  const flat = await ta.asOwner({ method: 'GET', url: `/api/spaces/${space.id}/pages` });
  t.equal(flat.statusCode, 200);
  t.same(
    flat.json().items.map((p: { title: string; depth: number }) => `${p.depth}:${p.title}`),
    ['0:Intro', '0:Guide', '1:Configure', '1:Install', '2:Linux'],
  );
  t.equal(flat.json().total, 5);
  t.notOk('body' in flat.json().items[0], 'listings leave bodies out');

  const tree = await ta.asOwner({ method: 'GET', url: `/api/spaces/${space.id}/pages?tree=true` });
  const roots = tree.json().items;
  t.same(
    roots.map((p: { title: string }) => p.title),
    ['Intro', 'Guide'],
  );
  t.equal(tree.json().total, 2, 'in tree mode the total counts top-level pages');
  t.same(
    roots[1].children.map((p: { title: string }) => p.title),
    ['Configure', 'Install'],
  );
  t.equal(roots[1].children[1].children[0].title, 'Linux');
  t.equal(roots[0].id, intro.id);

  const paged = await ta.asOwner({ method: 'GET', url: `/api/spaces/${space.id}/pages?limit=2&offset=2` });
  t.same(
    paged.json().items.map((p: { title: string }) => p.title),
    ['Configure', 'Install'],
  );

  // The API never leaves two siblings on one position; without the constraint, the title decides between them.
  await ta.sql`alter table pages drop constraint pages_sibling_position_key`;
  await ta.sql`update pages set position = 0 where title in ('Intro', 'Guide')`;
  const tied = await ta.asOwner({ method: 'GET', url: `/api/spaces/${space.id}/pages?tree=true` });
  t.same(
    tied.json().items.map((p: { title: string }) => p.title),
    ['Guide', 'Intro'],
  );
  t.equal(
    (await ta.asOwner({ method: 'GET', url: '/api/spaces/00000000-0000-4000-8000-000000000000/pages' }))
      .statusCode,
    404,
  );
});

t.test('patching position moves a page among its siblings, keeping 0..n-1', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const pages: PageBody[] = [];
  for (const title of ['a', 'b', 'c', 'd', 'e'])
    pages.push(await createPage(ta, { space_id: space.id, title }));
  t.same(await group(ta, space.id, null), ['0:a', '1:b', '2:c', '3:d', '4:e']);

  const down = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${pages[0].id}`,
    payload: { position: 3 },
  });
  t.equal(down.statusCode, 200);
  t.equal(down.json().position, 3);
  t.same(await group(ta, space.id, null), ['0:b', '1:c', '2:d', '3:a', '4:e']);

  await ta.asOwner({ method: 'PATCH', url: `/api/pages/${pages[4].id}`, payload: { position: 0 } });
  t.same(await group(ta, space.id, null), ['0:e', '1:b', '2:c', '3:d', '4:a']);

  const past = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${pages[1].id}`,
    payload: { position: 99 },
  });
  t.equal(past.json().position, 4, 'a position past the end means last');
  t.same(await group(ta, space.id, null), ['0:e', '1:c', '2:d', '3:a', '4:b']);

  const inserted = await createPage(ta, { space_id: space.id, title: 'f', position: 1 });
  t.equal(inserted.position, 1);
  t.same(await group(ta, space.id, null), ['0:e', '1:f', '2:c', '3:d', '4:a', '5:b']);

  await ta.asOwner({ method: 'DELETE', url: `/api/pages/${pages[2].id}` });
  t.same(await group(ta, space.id, null), ['0:e', '1:f', '2:d', '3:a', '4:b'], 'a delete closes the gap');

  // Reparenting leaves the old group contiguous and places the page in the new one.
  const moved = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${pages[3].id}`,
    payload: { parent_id: pages[4].id, position: 0 },
  });
  t.equal(moved.statusCode, 200);
  t.match(moved.json(), { parent_id: pages[4].id, position: 0 });
  t.same(await group(ta, space.id, null), ['0:e', '1:f', '2:a', '3:b']);
  t.same(await group(ta, space.id, pages[4].id), ['0:d']);
  const back = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${pages[3].id}`,
    payload: { parent_id: null },
  });
  t.equal(back.json().position, 4, 'moved without a position: last');
  t.same(await group(ta, space.id, null), ['0:e', '1:f', '2:a', '3:b', '4:d']);
});

t.test('concurrent moves in one sibling group never leave duplicate or missing positions', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const parent = await createPage(ta, { space_id: space.id, title: 'parent' });
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) {
    ids.push((await createPage(ta, { space_id: space.id, parent_id: parent.id, title: `p${i}` })).id);
  }
  const moves = Array.from({ length: 20 }, (_, i) =>
    ta.asOwner({
      method: 'PATCH',
      url: `/api/pages/${ids[(i * 3) % ids.length]}`,
      payload: { position: (i * 5) % ids.length },
    }),
  );
  const responses = await Promise.all(moves);
  t.same(
    responses.map((r) => r.statusCode),
    Array(20).fill(200),
  );
  const positions = await ta.sql<{ position: number }[]>`
    select position from pages where parent_id = ${parent.id} order by position`;
  t.same(
    positions.map((row) => row.position),
    [0, 1, 2, 3, 4, 5, 6, 7],
    'positions end distinct and contiguous',
  );
});

t.test('cycles and cross-space parents are refused', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const a = await createPage(ta, { space_id: home.id, title: 'a' });
  const b = await createPage(ta, { space_id: home.id, parent_id: a.id, title: 'b' });
  const c = await createPage(ta, { space_id: home.id, parent_id: b.id, title: 'c' });
  const other = await createPage(ta, { space_id: work.id, title: 'other' });

  const underGrandchild = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${a.id}`,
    payload: { parent_id: c.id },
  });
  t.equal(underGrandchild.statusCode, 409);
  t.match(underGrandchild.json().message, /descendants/);
  const underSelf = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${a.id}`,
    payload: { parent_id: a.id },
  });
  t.equal(underSelf.statusCode, 409);

  const crossMove = await ta.asOwner({
    method: 'PATCH',
    url: `/api/pages/${b.id}`,
    payload: { parent_id: other.id },
  });
  t.equal(crossMove.statusCode, 409);
  t.match(crossMove.json().message, /another space/);
  const crossCreate = await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: home.id, parent_id: other.id, title: 'x' },
  });
  t.equal(crossCreate.statusCode, 409);
  const missingParent = await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: home.id, parent_id: '00000000-0000-4000-8000-000000000000', title: 'x' },
  });
  t.equal(missingParent.statusCode, 404);

  const [row] = await ta.sql`select parent_id from pages where id = ${a.id}`;
  t.equal(row.parent_id, null, 'nothing moved');

  // Deleting a page takes its subtree with it.
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/pages/${a.id}` })).statusCode, 204);
  const left = await ta.sql`select title from pages where space_id = ${home.id}`;
  t.same(left, []);
});

t.test('agents read pages in their scope; writes follow their tier', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const homePage = await createPage(ta, { space_id: home.id, title: 'home page' });
  const workPage = await createPage(ta, { space_id: work.id, title: 'work page' });
  const scopedOwner = await createAgent(ta, { tier: 'owner', space_id: home.id });
  const reader = await createAgent(ta, { tier: 'read', space_id: home.id });
  const suggester = await createAgent(ta, { tier: 'suggest' });

  const listed = await ta.asAgent(reader.token, { method: 'GET', url: '/api/pages' });
  t.same(
    listed.json().items.map((p: PageBody) => p.title),
    ['home page'],
    'a scoped agent lists its space only',
  );
  t.equal(
    (await ta.asAgent(reader.token, { method: 'GET', url: `/api/pages?space_id=${work.id}` })).statusCode,
    404,
  );
  t.equal(
    (await ta.asAgent(reader.token, { method: 'GET', url: `/api/pages/${workPage.id}` })).statusCode,
    404,
  );
  t.equal(
    (await ta.asAgent(reader.token, { method: 'GET', url: `/api/pages/${homePage.id}` })).statusCode,
    200,
  );
  t.equal(
    (await ta.asAgent(reader.token, { method: 'GET', url: `/api/spaces/${work.id}/pages` })).statusCode,
    404,
  );
  const readerWrite = await ta.asAgent(reader.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { title: 'x' },
  });
  t.equal(readerWrite.statusCode, 403);

  const suggested = await ta.asAgent(suggester.token, {
    method: 'PATCH',
    url: `/api/pages/${homePage.id}`,
    payload: { title: 'renamed' },
  });
  t.equal(suggested.statusCode, 202, 'a suggest-tier write becomes a pending change');
  t.equal(suggested.json().status, 'pending');

  const injected = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { title: 'by agent' },
  });
  t.equal(injected.statusCode, 201);
  t.equal(injected.json().space_id, home.id, "the agent's space is injected");
  const outside = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: work.id, title: 'x' },
  });
  t.equal(outside.statusCode, 404);
  const outsideMove = await ta.asAgent(scopedOwner.token, {
    method: 'PATCH',
    url: `/api/pages/${workPage.id}`,
    payload: { position: 0 },
  });
  t.equal(outsideMove.statusCode, 404);
  const outsideDelete = await ta.asAgent(scopedOwner.token, {
    method: 'DELETE',
    url: `/api/pages/${workPage.id}`,
  });
  t.equal(outsideDelete.statusCode, 404);
  const [count] = await ta.sql`select count(*)::int as n from pages`;
  t.equal(count.n, 3, 'only the in-scope create was written');
});
