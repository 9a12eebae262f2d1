// POST /api/capture/upload: multipart with space_id and one file; the space is checked before anything is stored,
// the type against the content, the size against UPLOAD_MAX_BYTES; the file is a searchable document at once.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { multipart, type Part } from '../../helpers/multipart.ts';
import { articleHtml, makePdf, prose } from './fixtures.ts';

function upload(ta: TestApp, parts: Part[], token?: string) {
  const request = { method: 'POST' as const, url: '/api/capture/upload', ...multipart(parts) };
  return token ? ta.asAgent(token, request) : ta.asOwner(request);
}

async function docCount(ta: TestApp): Promise<number> {
  const [{ count }] = await ta.sql<{ count: number }[]>`select count(*)::int from source_docs`;
  return count;
}

t.test('text, Markdown, HTML and PDF uploads become searchable documents at once', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta, 'Files');
  const cases: { part: Part; title: string; type: string; word: string }[] = [
    {
      part: {
        name: 'file',
        filename: 'fridge.txt',
        type: 'text/plain',
        value: 'Fridge warranty runs until 2031',
      },
      title: 'fridge.txt',
      type: 'text/plain',
      word: 'warranty',
    },
    {
      part: {
        name: 'file',
        filename: 'plan.md',
        type: 'application/octet-stream',
        value: '# Solar plan\n\nPanels on the shed roof',
      },
      title: 'Solar plan',
      type: 'text/markdown',
      word: 'shed',
    },
    {
      part: {
        name: 'file',
        filename: 'saved.html',
        type: 'text/html',
        value: articleHtml('Sourdough starter maintenance routine', prose('sourdough')),
      },
      title: 'Sourdough starter maintenance routine',
      type: 'text/html',
      word: 'sourdough',
    },
    {
      part: {
        name: 'file',
        filename: 'scan.pdf',
        type: 'application/pdf',
        value: makePdf(['Boiler service invoice'], 'Invoice 42'),
      },
      title: 'Invoice 42',
      type: 'application/pdf',
      word: 'boiler',
    },
  ];
  for (const c of cases) {
    const res = await upload(ta, [{ name: 'space_id', value: space.id }, c.part]);
    t.equal(res.statusCode, 201, c.part.filename ?? '');
    const doc = res.json();
    t.match(doc, {
      id: /^[0-9a-f-]{36}$/,
      space_id: space.id,
      url: null,
      title: c.title,
      content_type: c.type,
      origin: 'upload',
      metadata: { filename: c.part.filename, bytes: Buffer.byteLength(c.part.value) },
    });
    const search = await ta.asOwner({ method: 'GET', url: `/api/search?q=${c.word}&kinds=source_docs` });
    t.ok(
      search.json().items.some((hit: { id: string }) => hit.id === doc.id),
      `searchable at once: ${c.word}`,
    );
  }
  const titled = await upload(ta, [
    { name: 'file', filename: 'a.txt', type: 'text/plain', value: 'space after file' },
    { name: 'space_id', value: space.id },
    { name: 'title', value: 'Given title' },
  ]);
  t.equal(titled.statusCode, 201, 'space_id may follow the file');
  t.equal(titled.json().title, 'Given title');
  const [stored] = await ta.sql`select content from source_docs where id = ${titled.json().id}`;
  t.equal(stored.content, 'space after file');
});

t.test('space_id must be a UUID of an existing space, checked before anything is stored', async (t) => {
  const ta = await testApp(t);
  const file: Part = { name: 'file', filename: 'a.txt', type: 'text/plain', value: 'hello' };
  const bad = await upload(ta, [{ name: 'space_id', value: 'not-a-uuid' }, file]);
  t.equal(bad.statusCode, 400);
  t.match(bad.json().message, /space_id must be a UUID/);
  const badAfter = await upload(ta, [file, { name: 'space_id', value: "1' or '1'='1" }]);
  t.equal(badAfter.statusCode, 400);
  const missing = await upload(ta, [
    { name: 'space_id', value: '00000000-0000-4000-8000-000000000000' },
    file,
  ]);
  t.equal(missing.statusCode, 404);
  const absent = await upload(ta, [file]);
  t.equal(absent.statusCode, 400);
  t.match(absent.json().message, /space_id is required/);
  const space = await createSpace(ta);
  const noFile = await upload(ta, [{ name: 'space_id', value: space.id }]);
  t.equal(noFile.statusCode, 400);
  t.match(noFile.json().message, /file is required/);
  const extra = await upload(ta, [
    { name: 'space_id', value: space.id },
    { name: 'colour', value: 'red' },
    file,
  ]);
  t.equal(extra.statusCode, 400, 'unknown fields are refused');
  const notMultipart = await ta.asOwner({
    method: 'POST',
    url: '/api/capture/upload',
    payload: { space_id: space.id },
  });
  t.equal(notMultipart.statusCode, 415);
  t.equal(await docCount(ta), 0, 'nothing was stored');
});

t.test('other types are refused with 415, also when the content contradicts the type', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const refused: Part[] = [
    {
      name: 'file',
      filename: 'photo.png',
      type: 'image/png',
      value: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
    },
    { name: 'file', filename: 'data.json', type: 'application/json', value: '{"a":1}' },
    {
      name: 'file',
      filename: 'archive.zip',
      type: 'application/zip',
      value: Buffer.from([0x50, 0x4b, 3, 4, 0, 0]),
    },
    {
      name: 'file',
      filename: 'fake.pdf',
      type: 'application/pdf',
      value: 'I am plain text wearing a PDF label',
    },
    {
      name: 'file',
      filename: 'binary.txt',
      type: 'text/plain',
      value: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 0]),
    },
  ];
  for (const file of refused) {
    const res = await upload(ta, [{ name: 'space_id', value: space.id }, file]);
    t.equal(res.statusCode, 415, file.filename ?? '');
  }
  const broken = await upload(ta, [
    { name: 'space_id', value: space.id },
    { name: 'file', filename: 'broken.pdf', type: 'application/pdf', value: '%PDF-1.4\nnothing else' },
  ]);
  t.equal(broken.statusCode, 422, 'a PDF that cannot be read is refused');
  const empty = await upload(ta, [
    { name: 'space_id', value: space.id },
    { name: 'file', filename: 'e.txt', type: 'text/plain', value: '' },
  ]);
  t.equal(empty.statusCode, 400);
  t.equal(await docCount(ta), 0);
});

t.test('a file over UPLOAD_MAX_BYTES is refused with 413 and nothing is stored', async (t) => {
  const ta = await testApp(t, { env: { UPLOAD_MAX_BYTES: '2048' } });
  const space = await createSpace(ta);
  const big = await upload(ta, [
    { name: 'space_id', value: space.id },
    { name: 'file', filename: 'big.txt', type: 'text/plain', value: 'x'.repeat(4096) },
  ]);
  t.equal(big.statusCode, 413);
  const fits = await upload(ta, [
    { name: 'space_id', value: space.id },
    { name: 'file', filename: 'fits.txt', type: 'text/plain', value: 'x'.repeat(2048) },
  ]);
  t.equal(fits.statusCode, 201, 'exactly the limit is accepted');
  const two = await upload(ta, [
    { name: 'space_id', value: space.id },
    { name: 'file', filename: 'a.txt', type: 'text/plain', value: 'a' },
    { name: 'file', filename: 'b.txt', type: 'text/plain', value: 'b' },
  ]);
  t.equal(two.statusCode, 413, 'one file per upload');
  t.equal(await docCount(ta), 1);
  t.same(await readdir(path.join(ta.dataDir, 'incoming')), [], 'no partial file is left on disk');
});

t.test('agents upload into the spaces in their scope', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const agent = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const file: Part = { name: 'file', filename: 'n.txt', type: 'text/plain', value: 'agent notes' };
  const proposed = await upload(ta, [{ name: 'space_id', value: home.id }, file], agent.token);
  t.equal(proposed.statusCode, 202, "a suggest-tier agent's upload waits for the owner");
  t.match(proposed.json(), { pending_change_id: String, status: 'pending' });
  t.equal(await docCount(ta), 0, 'nothing is stored before approval');
  const outside = await upload(ta, [{ name: 'space_id', value: work.id }, file], agent.token);
  t.equal(outside.statusCode, 404, 'a space outside the scope answers as if it did not exist');
  const anon = await ta.anon({ method: 'POST', url: '/api/capture/upload', ...multipart([file]) });
  t.equal(anon.statusCode, 401);
  const approved = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${proposed.json().pending_change_id}/approve`,
  });
  t.equal(approved.statusCode, 200);
  const [doc] = await ta.sql<{ id: string; space_id: string; content: string; origin: string }[]>`
    select id, space_id, content, origin from source_docs`;
  t.same(
    doc,
    { id: approved.json().result_entity_id, space_id: home.id, content: 'agent notes', origin: 'upload' },
    'the approval stored the file kept with the proposal',
  );
  const reader = await createAgent(ta, { tier: 'read' });
  const refused = await upload(ta, [{ name: 'space_id', value: home.id }, file], reader.token);
  t.equal(refused.statusCode, 403);
  t.equal(refused.json().code, 'TIER_CANNOT_WRITE');
  const ownerTier = await createAgent(ta, { tier: 'owner' });
  const direct = await upload(ta, [{ name: 'space_id', value: work.id }, file], ownerTier.token);
  t.equal(direct.statusCode, 201, 'an owner-tier agent stores at once');
  const [audited] =
    await ta.sql`select action, entity_type, entity_id from audit_log where entity_type = 'upload' and action = 'apply_direct'`;
  t.same(audited, { action: 'apply_direct', entity_type: 'upload', entity_id: direct.json().id });
  t.equal(await docCount(ta), 2);
});
