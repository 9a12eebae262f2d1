// Boards: named dashboards in tab order; the default board's layout is the dashboard layout, the others keep their
// own, each with the ETag and If-Match rules; the apps and bookmarks card types.
import t from 'tap';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';

const ta = await testApp(t);

async function boards(): Promise<{ id: string; name: string; position: number; is_default: boolean }[]> {
  return (await ta.asOwner({ method: 'GET', url: '/api/boards' })).json().items;
}

t.test('boards: one default to start with, added, reordered, renamed and deleted', async (t) => {
  const [home] = await boards();
  t.match(home, { name: 'Home', position: 0, is_default: true });
  const media = await ta.asOwner({ method: 'POST', url: '/api/boards', payload: { name: 'Media' } });
  t.equal(media.statusCode, 201);
  t.match(media.json(), { name: 'Media', position: 1, is_default: false });
  const ops = await ta.asOwner({ method: 'POST', url: '/api/boards', payload: { name: 'Ops', position: 0 } });
  t.equal(ops.json().position, 0);
  t.same(
    (await boards()).map((board) => `${board.position}:${board.name}`),
    ['0:Ops', '1:Home', '2:Media'],
  );
  const renamed = await ta.asOwner({
    method: 'PATCH',
    url: `/api/boards/${ops.json().id}`,
    payload: { name: 'Operations', position: 5 },
  });
  t.match(renamed.json(), { name: 'Operations', position: 2 });
  t.same(
    (await boards()).map((board) => `${board.position}:${board.name}`),
    ['0:Home', '1:Media', '2:Operations'],
  );

  const refused = await ta.asOwner({ method: 'DELETE', url: `/api/boards/${home.id}` });
  t.equal(refused.statusCode, 409);
  t.equal(refused.json().code, 'BOARD_IS_DEFAULT');
  const deleted = await ta.asOwner({ method: 'DELETE', url: `/api/boards/${media.json().id}` });
  t.equal(deleted.statusCode, 204);
  t.same(
    (await boards()).map((board) => `${board.position}:${board.name}`),
    ['0:Home', '1:Operations'],
  );
  const gone = await ta.asOwner({ method: 'GET', url: `/api/boards/${media.json().id}` });
  t.equal(gone.json().code, 'BOARD_NOT_FOUND');
  await ta.asOwner({ method: 'DELETE', url: `/api/boards/${ops.json().id}` });
});

t.test("the default board's layout is the dashboard layout, with the same ETag rules", async (t) => {
  const [home] = await boards();
  const dashboard = await ta.asOwner({ method: 'GET', url: '/api/dashboard/layout' });
  const board = await ta.asOwner({ method: 'GET', url: `/api/boards/${home.id}/layout` });
  t.same(board.json(), dashboard.json());
  t.equal(board.headers.etag, dashboard.headers.etag);

  const put = await ta.asOwner({
    method: 'PUT',
    url: `/api/boards/${home.id}/layout`,
    headers: { 'if-match': String(board.headers.etag) },
    payload: { mode: 'snap', cards: [{ id: 'tiles', type: 'apps', size: 12, config: { columns: 6 } }] },
  });
  t.equal(put.statusCode, 200, put.body);
  const after = await ta.asOwner({ method: 'GET', url: '/api/dashboard/layout' });
  t.same(
    after.json().cards.map((card: { id: string }) => card.id),
    ['tiles'],
  );
  t.equal(after.headers.etag, put.headers.etag);

  // A write through either route makes the other's ETag stale.
  const stale = await ta.asOwner({
    method: 'PUT',
    url: '/api/dashboard/layout',
    headers: { 'if-match': String(board.headers.etag) },
    payload: { mode: 'snap', cards: [] },
  });
  t.equal(stale.statusCode, 412);
  t.equal(stale.json().code, 'LAYOUT_CHANGED');
});

t.test('another board keeps a layout of its own, starting empty, gone with the board', async (t) => {
  const space = await createSpace(ta, 'Bookmarks');
  const created = await ta.asOwner({ method: 'POST', url: '/api/boards', payload: { name: 'Links' } });
  const id = created.json().id;
  const empty = await ta.asOwner({ method: 'GET', url: `/api/boards/${id}/layout` });
  t.same(empty.json(), { mode: 'snap', cards: [] });
  const layout = {
    mode: 'snap',
    cards: [
      { id: 'links', type: 'bookmarks', size: 6, config: { space_id: space.id, tag: 'Developer' } },
      { id: 'media', type: 'apps', size: 6, config: { group: 'Media' } },
    ],
  };
  const put = await ta.asOwner({
    method: 'PUT',
    url: `/api/boards/${id}/layout`,
    headers: { 'if-match': String(empty.headers.etag) },
    payload: layout,
  });
  t.equal(put.statusCode, 200, put.body);
  t.match(put.json().cards, [
    { id: 'links', x: 0, y: 0 },
    { id: 'media', x: 6, y: 0 },
  ]);
  const stale = await ta.asOwner({
    method: 'PUT',
    url: `/api/boards/${id}/layout`,
    headers: { 'if-match': String(empty.headers.etag) },
    payload: layout,
  });
  t.equal(stale.statusCode, 412);
  const dashboard = await ta.asOwner({ method: 'GET', url: '/api/dashboard/layout' });
  t.notOk(
    dashboard.json().cards.some((card: { id: string }) => card.id === 'links'),
    'the default board is untouched',
  );

  for (const [config, problem] of [
    [{ group: 'Media', columns: 13 }, /columns/],
    [{ tag: 'x' }, /space_id/],
    [{ space_id: 'not-a-uuid' }, /space_id/],
    [{ space_id: space.id, colour: 'red' }, /colour is not a bookmarks setting/],
  ] as const) {
    const type = 'group' in config ? 'apps' : 'bookmarks';
    const bad = await ta.asOwner({
      method: 'PUT',
      url: `/api/boards/${id}/layout`,
      payload: { mode: 'snap', cards: [{ id: 'c', type, size: 4, config }] },
    });
    t.equal(bad.statusCode, 400, JSON.stringify(config));
    t.equal(bad.json().code, 'LAYOUT_INVALID');
    t.match(bad.json().message, problem);
  }

  await ta.asOwner({ method: 'DELETE', url: `/api/boards/${id}` });
  const rows = await ta.sql`select 1 from dashboard_layouts where owner_key = ${`board:${id}`}`;
  t.equal(rows.length, 0, 'its layout went with it');
  const missing = await ta.asOwner({ method: 'GET', url: `/api/boards/${id}/layout` });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'BOARD_NOT_FOUND');
});

t.test('boards are the owner’s', async (t) => {
  const agent = await createAgent(ta, { tier: 'owner' });
  const [home] = await boards();
  for (const url of ['/api/boards', `/api/boards/${home.id}/layout`]) {
    const response = await ta.asAgent(agent.token, { method: 'GET', url });
    t.equal(response.statusCode, 403, url);
    t.equal(response.json().code, 'OWNER_ONLY');
  }
});
