// Icon sets: uploads sorted by their bytes, all-or-nothing writes, serving with revalidation, and who may do what.
import t from 'tap';
import { svgCsp } from '../../../domains/icons/serve.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { jpeg, multipart, png, svg, uploadSet, zip } from './helpers.ts';

t.test('a zip with svg, png and jpg: the jpg is rejected, the others stored and served', async (t) => {
  const ta = await testApp(t);
  const pngBytes = png();
  const archive = await zip([
    { name: 'Brands/Home Assistant.SVG', bytes: svg() },
    { name: 'router.png', bytes: pngBytes },
    { name: 'photo.jpg', bytes: jpeg },
    { name: 'notes/readme.txt', bytes: Buffer.from('hello') },
  ]);
  const response = await ta.asOwner(uploadSet('homelab', archive));
  t.equal(response.statusCode, 201, response.body);
  const body = response.json();
  t.equal(body.set.name, 'homelab');
  t.equal(body.set.icon_count, 2);
  t.same(
    body.accepted.map((icon: { name: string; type: string }) => `${icon.name}.${icon.type}`).sort(),
    ['home-assistant.svg', 'router.png'],
    'folders flattened, names normalised',
  );
  t.same(body.rejected.map((r: { file: string }) => r.file).sort(), ['notes/readme.txt', 'photo.jpg']);
  t.match(
    body.rejected.find((r: { file: string }) => r.file === 'photo.jpg').reason,
    /only \.svg and \.png.*JPEG/,
  );

  const list = await ta.anon({ method: 'GET', url: '/api/icon-sets' });
  t.equal(list.statusCode, 200, 'anyone lists the sets');
  t.match(list.json().items, [{ name: 'homelab', icon_count: 2 }]);
  const detail = await ta.anon({ method: 'GET', url: '/api/icon-sets/homelab' });
  t.equal(detail.statusCode, 200);
  t.match(detail.json().icons, [
    {
      name: 'home-assistant',
      type: 'svg',
      ref: 'set:homelab:home-assistant',
      url: '/api/icon-sets/homelab/home-assistant.svg',
    },
    { name: 'router', type: 'png', ref: 'set:homelab:router' },
  ]);

  const file = await ta.anon({ method: 'GET', url: '/api/icon-sets/homelab/router.png' });
  t.equal(file.statusCode, 200, 'an <img> sends no token: reads are public');
  t.equal(file.headers['content-type'], 'image/png');
  t.equal(file.headers['cache-control'], 'no-cache');
  t.equal(file.headers['x-content-type-options'], 'nosniff');
  t.notOk(file.headers['content-security-policy'], 'the CSP is for SVG');
  t.ok(file.rawPayload.equals(pngBytes), 'the PNG as uploaded');
  const etag = String(file.headers.etag);
  t.match(etag, /^"[0-9a-f]{64}"$/, 'a strong ETag');

  const again = await ta.anon({
    method: 'GET',
    url: '/api/icon-sets/homelab/router.png',
    headers: { 'if-none-match': etag },
  });
  t.equal(again.statusCode, 304, 'unchanged: 304');
  t.equal(again.rawPayload.length, 0);
  t.equal(again.headers.etag, etag);
  t.equal(again.headers['cache-control'], 'no-cache');
  const listed = await ta.anon({
    method: 'GET',
    url: '/api/icon-sets/homelab/router.png',
    headers: { 'if-none-match': `"other", W/${etag}` },
  });
  t.equal(listed.statusCode, 304, 'a list and a weak form match too');
  const stale = await ta.anon({
    method: 'GET',
    url: '/api/icon-sets/homelab/router.png',
    headers: { 'if-none-match': '"stale"' },
  });
  t.equal(stale.statusCode, 200);

  const vector = await ta.anon({ method: 'GET', url: '/api/icon-sets/homelab/home-assistant.svg' });
  t.equal(vector.statusCode, 200);
  t.equal(vector.headers['content-type'], 'image/svg+xml');
  t.equal(vector.headers['content-security-policy'], svgCsp);
  t.equal(vector.headers['cache-control'], 'no-cache');
  t.match(vector.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);

  for (const name of [
    'router.svg',
    'photo.jpg',
    'router.PNG',
    'router',
    '..%2Frouter.png',
    'Router.png',
    'x.jpeg',
  ]) {
    const missing = await ta.anon({ method: 'GET', url: `/api/icon-sets/homelab/${name}` });
    t.equal(missing.statusCode, 404, `${name} does not exist`);
    t.equal(missing.json().code, 'ICON_UNKNOWN');
  }
  t.equal((await ta.anon({ method: 'GET', url: '/api/icon-sets/nope' })).statusCode, 404);
  t.equal((await ta.anon({ method: 'GET', url: '/api/icon-sets/NOPE!' })).json().code, 'ICON_SET_NOT_FOUND');
});

t.test(
  'bytes decide: a JPEG named .png and a PNG named .jpg are refused; nothing acceptable is 415',
  async (t) => {
    const ta = await testApp(t);
    const archive = await zip([
      { name: 'fake.png', bytes: jpeg },
      { name: 'real.jpg', bytes: png() },
      { name: 'text.svg', bytes: Buffer.from('just text') },
      { name: 'html.svg', bytes: Buffer.from('<html><body/></html>') },
    ]);
    const response = await ta.asOwner(uploadSet('nothing', archive));
    t.equal(response.statusCode, 415, response.body);
    t.equal(response.json().code, 'NO_ACCEPTABLE_ICON');
    const reasons = Object.fromEntries(
      response.json().rejected.map((r: { file: string; reason: string }) => [r.file, r.reason]),
    );
    t.match(reasons['fake.png'], /named \.png but the bytes are a JPEG/);
    t.match(reasons['real.jpg'], /not \.jpg \(the bytes are a PNG\)/);
    t.match(reasons['text.svg'], /not an SVG/);
    t.match(reasons['html.svg'], /root element is <html>/);
    t.same(await ta.sql`select name from icon_sets`, [], 'nothing was created');

    const empty = await ta.asOwner(uploadSet('empty', await zip([])));
    t.equal(empty.statusCode, 415);
    t.same(await ta.sql`select name from icon_sets`, []);
  },
);

t.test('an existing name is 409 unless ?replace=true, which swaps the icons at once', async (t) => {
  const ta = await testApp(t);
  t.equal((await ta.asOwner(uploadSet('lab', await zip([{ name: 'a.svg', bytes: svg() }])))).statusCode, 201);
  const clash = await ta.asOwner(uploadSet('lab', await zip([{ name: 'b.svg', bytes: svg() }])));
  t.equal(clash.statusCode, 409);
  t.equal(clash.json().code, 'ICON_SET_EXISTS');
  const replaced = await ta.asOwner(
    uploadSet('lab', await zip([{ name: 'b.svg', bytes: svg() }]), '?replace=true'),
  );
  t.equal(replaced.statusCode, 201, replaced.body);
  t.same(
    (await ta.sql`select name from icon_files where set_name = 'lab'`).map((r) => r.name),
    ['b'],
  );

  const refused = await ta.asOwner(
    uploadSet('lab', await zip([{ name: 'c.gif', bytes: Buffer.from('GIF89a') }]), '?replace=true'),
  );
  t.equal(refused.statusCode, 415);
  t.same(
    (await ta.sql`select name from icon_files where set_name = 'lab'`).map((r) => r.name),
    ['b'],
    'a failed replace keeps the old icons',
  );

  for (const name of ['Bad Name', 'x'.repeat(41), '', 'a/b']) {
    const bad = await ta.asOwner(uploadSet(name, await zip([{ name: 'a.svg', bytes: svg() }])));
    t.equal(bad.statusCode, 400, `set name ${JSON.stringify(name)}`);
    t.match(bad.json().message, /name/);
  }
});

t.test('one icon added to a set; 404, 409 and 415 as they apply', async (t) => {
  const ta = await testApp(t);
  await ta.asOwner(uploadSet('lab', await zip([{ name: 'a.svg', bytes: svg() }])));
  const add = (
    file: string,
    bytes: Buffer,
    query = '',
    set = 'lab',
    fields: { name: string; value: string }[] = [],
  ) =>
    ta.asOwner({
      method: 'POST',
      url: `/api/icon-sets/${set}/icons${query}`,
      ...multipart([...fields, { name: 'file', filename: file, bytes }]),
    });
  const added = await add('NAS Box.png', png());
  t.equal(added.statusCode, 201, added.body);
  t.match(added.json(), {
    name: 'nas-box',
    type: 'png',
    ref: 'set:lab:nas-box',
    url: '/api/icon-sets/lab/nas-box.png',
  });
  t.equal((await ta.anon({ method: 'GET', url: '/api/icon-sets/lab/nas-box.png' })).statusCode, 200);
  const taken = await add('nas-box.svg', svg());
  t.equal(taken.statusCode, 409, 'the name is taken (whatever the type)');
  t.equal(taken.json().code, 'ICON_EXISTS');
  const replaced = await add('nas-box.svg', svg(), '?replace=true');
  t.equal(replaced.statusCode, 201);
  t.equal((await ta.anon({ method: 'GET', url: '/api/icon-sets/lab/nas-box.svg' })).statusCode, 200);
  t.equal((await ta.anon({ method: 'GET', url: '/api/icon-sets/lab/nas-box.png' })).statusCode, 404);
  const named = await add('whatever.svg', svg(), '', 'lab', [{ name: 'name', value: 'switch' }]);
  t.equal(named.json().name, 'switch');
  const fake = await add('fake.png', jpeg);
  t.equal(fake.statusCode, 415);
  t.match(fake.json().message, /JPEG/);
  t.equal((await add('a.jpg', jpeg)).statusCode, 415);
  t.equal((await add('x.svg', svg(), '', 'missing')).statusCode, 404);
  t.equal((await ta.anon({ method: 'GET', url: '/api/icon-sets/lab' })).json().icon_count, 3);
});

t.test("writes are the owner's: 401 anonymous, 403 for agents; reads are public", async (t) => {
  const ta = await testApp(t);
  const agent = await createAgent(ta, { tier: 'owner' });
  const archive = await zip([{ name: 'a.svg', bytes: svg() }]);
  const writes = [
    () => uploadSet('lab', archive),
    () => ({
      method: 'POST' as const,
      url: '/api/icon-sets',
      payload: { name: 'lab', url: 'https://example.com/x.zip' },
    }),
    () => ({
      method: 'POST' as const,
      url: '/api/icon-sets/lab/icons',
      ...multipart([{ name: 'file', filename: 'a.svg', bytes: svg() }]),
    }),
    () => ({ method: 'DELETE' as const, url: '/api/icon-sets/lab' }),
  ];
  for (const write of writes) {
    const anon = await ta.anon(write());
    t.equal(anon.statusCode, 401, `${write().method} ${write().url} anonymous`);
    const asAgent = await ta.asAgent(agent.token, write());
    t.equal(asAgent.statusCode, 403, `${write().method} ${write().url} as an agent`);
    t.equal(asAgent.json().code, 'OWNER_ONLY');
  }
  t.same(await ta.sql`select name from icon_sets`, []);
  t.equal((await ta.asOwner(uploadSet('lab', archive))).statusCode, 201);
  for (const url of [
    '/api/icon-sets',
    '/api/icon-sets/lab',
    '/api/icon-sets/lab/a.svg',
    '/api/icons?q=git',
    '/api/icons/github.png',
    '/api/icons/github.svg',
  ]) {
    t.equal((await ta.anon({ method: 'GET', url })).statusCode, 200, `GET ${url} anonymous`);
    t.equal(
      (await ta.asAgent(agent.token, { method: 'GET', url })).statusCode,
      200,
      `GET ${url} as an agent`,
    );
  }
  const deleted = await ta.asOwner({ method: 'DELETE', url: '/api/icon-sets/lab' });
  t.equal(deleted.statusCode, 204);
  t.same(await ta.sql`select name from icon_files`, [], 'its icons went with it');
  t.equal((await ta.asOwner({ method: 'DELETE', url: '/api/icon-sets/lab' })).statusCode, 404);
});
