import t from 'tap';
import { insertSourceDoc, upsertSourceDocByUrl } from '../../domains/source-docs/store.ts';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';

t.test('owner manages refs', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: {
      space_id: home.id,
      source: 'github',
      external_id: 'fastify/fastify',
      url: 'https://github.com/fastify/fastify',
      title: 'Fastify',
    },
  });
  t.equal(created.statusCode, 201);
  const ref = created.json();
  t.match(ref, { source: 'github', external_id: 'fastify/fastify', title: 'Fastify', notes: '' });

  const duplicate = await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: home.id, source: 'github', external_id: 'fastify/fastify' },
  });
  t.equal(duplicate.statusCode, 409, 'an identity exists once');
  const badUrl = await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: home.id, source: 'web', external_id: 'x', url: 'not a url' },
  });
  t.equal(badUrl.statusCode, 400);
  await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: work.id, source: 'arxiv', external_id: '2401.00001' },
  });

  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/refs/${ref.id}`,
    payload: { notes: 'web framework', url: null },
  });
  t.equal(patched.statusCode, 200);
  t.match(patched.json(), { notes: 'web framework', url: null, title: 'Fastify' });

  const bySpace = await ta.asOwner({ method: 'GET', url: `/api/refs?space_id=${work.id}` });
  t.same(
    bySpace.json().items.map((r: { external_id: string }) => r.external_id),
    ['2401.00001'],
  );
  const bySource = await ta.asOwner({ method: 'GET', url: '/api/refs?source=github&limit=5&offset=0' });
  t.same(
    { ...bySource.json(), items: bySource.json().items.map((r: { id: string }) => r.id) },
    { items: [ref.id], total: 1, limit: 5, offset: 0 },
  );
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/refs/${ref.id}` })).json().notes, 'web framework');
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/refs/${ref.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/refs/${ref.id}` })).statusCode, 404);
});

t.test('upsert by external identity creates, then updates what it names', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const first = await ta.asOwner({
    method: 'POST',
    url: '/api/refs/upsert',
    payload: {
      space_id: home.id,
      source: 'bookmarks',
      external_id: '42',
      title: 'Old title',
      notes: 'keep me',
    },
  });
  t.equal(first.statusCode, 201);
  const second = await ta.asOwner({
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { space_id: home.id, source: 'bookmarks', external_id: '42', title: 'New title' },
  });
  t.equal(second.statusCode, 200);
  t.equal(second.json().id, first.json().id);
  t.match(second.json(), { title: 'New title', notes: 'keep me' }, 'fields left out keep their value');

  const elsewhere = await ta.asOwner({
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { space_id: work.id, source: 'bookmarks', external_id: '42', title: 'hijack' },
  });
  t.equal(elsewhere.statusCode, 409);
  t.match(elsewhere.json().message, /another space/);
  const [row] = await ta.sql`select title, space_id from refs where external_id = '42'`;
  t.same(row, { title: 'New title', space_id: home.id });
});

t.test('concurrent upserts of one identity leave one row', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const responses = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      ta.asOwner({
        method: 'POST',
        url: '/api/refs/upsert',
        payload: { space_id: space.id, source: 'rss', external_id: 'item-1', title: `title ${i}` },
      }),
    ),
  );
  const codes = responses.map((r) => r.statusCode).sort();
  t.same(codes, [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201], 'one create, the rest updates');
  t.equal(new Set(responses.map((r) => r.json().id)).size, 1);
  const [count] =
    await ta.sql`select count(*)::int as n from refs where source = 'rss' and external_id = 'item-1'`;
  t.equal(count.n, 1);
});

t.test('agents on refs: suggest tier is diverted, read tier refused, owner tier scoped', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const reader = await createAgent(ta, { tier: 'read', space_id: home.id });
  const scopedOwner = await createAgent(ta, { tier: 'owner', space_id: home.id });

  const suggested = await ta.asAgent(suggester.token, {
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { source: 'web', external_id: 'a' },
  });
  t.equal(suggested.statusCode, 202, 'a suggest-tier write becomes a pending change');
  t.equal(suggested.json().status, 'pending');
  t.equal(
    (
      await ta.asAgent(reader.token, {
        method: 'POST',
        url: '/api/refs',
        payload: { source: 'web', external_id: 'a' },
      })
    ).statusCode,
    403,
  );
  const upserted = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { source: 'web', external_id: 'a' },
  });
  t.equal(upserted.statusCode, 201);
  t.equal(upserted.json().space_id, home.id, 'space injected');
  const outside = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { space_id: work.id, source: 'web', external_id: 'b' },
  });
  t.equal(outside.statusCode, 404);
  const [count] = await ta.sql`select count(*)::int as n from refs`;
  t.equal(count.n, 1);
  t.equal((await ta.asAgent(reader.token, { method: 'GET', url: '/api/refs' })).json().total, 1);
});

t.test('source documents: store functions for ingestion, REST read, edit and delete', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');

  const first = await upsertSourceDocByUrl(ta.sql, {
    space_id: home.id,
    url: 'https://example.com/a',
    title: 'A',
    content: 'first capture',
    content_type: 'text/html',
    origin: 'url',
    metadata: { byline: 'me' },
  });
  const again = await upsertSourceDocByUrl(ta.sql, {
    space_id: home.id,
    url: 'https://example.com/a',
    title: 'A2',
    content: 'second capture',
    content_type: 'text/html',
    origin: 'webhook',
  });
  t.equal(again.id, first.id, 'one document per URL per space');
  t.match(again, { title: 'A2', content: 'second capture', origin: 'webhook', metadata: {} });
  const sameUrlElsewhere = await upsertSourceDocByUrl(ta.sql, {
    space_id: work.id,
    url: 'https://example.com/a',
    title: 'W',
    content: 'work copy',
    content_type: 'text/plain',
    origin: 'url',
  });
  t.not(sameUrlElsewhere.id, first.id);
  const concurrent = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      upsertSourceDocByUrl(ta.sql, {
        space_id: home.id,
        url: 'https://example.com/race',
        title: `r${i}`,
        content: '',
        content_type: 'text/plain',
        origin: 'url',
      }),
    ),
  );
  t.equal(new Set(concurrent.map((doc) => doc.id)).size, 1);
  const upload = await insertSourceDoc(ta.sql, {
    space_id: home.id,
    url: null,
    title: 'notes.txt',
    content: 'uploaded text',
    content_type: 'text/plain',
    origin: 'upload',
    captured_at: new Date('2020-01-01T00:00:00Z'),
  });
  t.equal(upload.url, null);
  await t.rejects(
    insertSourceDoc(ta.sql, { ...upload, url: 'https://example.com/a', origin: 'url' }),
    { code: '23505' },
    'insert refuses a URL already captured in the space',
  );

  const list = await ta.asOwner({ method: 'GET', url: `/api/source-docs?space_id=${home.id}` });
  t.equal(list.statusCode, 200);
  t.equal(list.json().total, 3);
  t.equal(list.json().items.at(-1).id, upload.id, 'most recently captured first');
  t.notOk('content' in list.json().items[0], 'lists leave content out');
  t.equal(list.json().items.at(-1).content_length, 'uploaded text'.length);
  const uploads = await ta.asOwner({ method: 'GET', url: '/api/source-docs?origin=upload' });
  t.same(
    uploads.json().items.map((d: { id: string }) => d.id),
    [upload.id],
  );
  const one = await ta.asOwner({ method: 'GET', url: `/api/source-docs/${first.id}` });
  t.match(one.json(), { content: 'second capture', url: 'https://example.com/a' });

  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/source-docs',
    payload: { space_id: work.id, title: 'Pasted', content: 'pasted text', metadata: { from: 'clipboard' } },
  });
  t.equal(created.statusCode, 201);
  t.match(created.json(), {
    origin: 'upload',
    content_type: 'text/plain',
    url: null,
    metadata: { from: 'clipboard' },
  });
  const badOrigin = await ta.asOwner({
    method: 'POST',
    url: '/api/source-docs',
    payload: { space_id: work.id, origin: 'fax' },
  });
  t.equal(badOrigin.statusCode, 400);
  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/source-docs/${created.json().id}`,
    payload: { title: 'Pasted text', metadata: { from: 'editor' } },
  });
  t.match(patched.json(), { title: 'Pasted text', content: 'pasted text', metadata: { from: 'editor' } });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/source-docs/${upload.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/source-docs/${upload.id}` })).statusCode, 404);

  const reader = await createAgent(ta, { tier: 'read', space_id: work.id });
  t.equal((await ta.asAgent(reader.token, { method: 'GET', url: '/api/source-docs' })).json().total, 2);
  t.equal(
    (await ta.asAgent(reader.token, { method: 'GET', url: `/api/source-docs/${first.id}` })).statusCode,
    404,
  );
  t.equal(
    (await ta.asAgent(reader.token, { method: 'DELETE', url: `/api/source-docs/${sameUrlElsewhere.id}` }))
      .statusCode,
    403,
  );
});
