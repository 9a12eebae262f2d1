// Source documents: the store functions ingestion uses, and the REST read, edit and delete.
import t from 'tap';
import { insertSourceDoc, upsertSourceDocByUrl } from '../../domains/source-docs/store.ts';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';

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

t.test('a document URL is a web link: other schemes are refused and not stored', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const doc = await ta.asOwner({
    method: 'POST',
    url: '/api/source-docs',
    payload: { space_id: home.id, title: 'Notes', url: 'http://wiki.lan/notes' },
  });
  t.equal(doc.statusCode, 201);
  for (const url of ['javascript:alert(1)', 'data:text/html,hi', 'blob:https://example.org/x']) {
    const created = await ta.asOwner({
      method: 'POST',
      url: '/api/source-docs',
      payload: { space_id: home.id, title: url, url },
    });
    t.equal(created.statusCode, 400, url);
    t.equal(created.json().code, 'URL_REFUSED');
    const patched = await ta.asOwner({
      method: 'PATCH',
      url: `/api/source-docs/${doc.json().id}`,
      payload: { url },
    });
    t.equal(patched.statusCode, 400);
    t.equal(patched.json().code, 'URL_REFUSED');
  }
  t.same(
    (await ta.sql`select url from source_docs`).map((row) => row.url),
    ['http://wiki.lan/notes'],
    'only the web link is stored',
  );
});
