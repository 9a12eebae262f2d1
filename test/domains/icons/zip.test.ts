// Archives refused whole (limits, zip slip, links, encryption) and uploads by URL through the guarded client.
import t from 'tap';
import { testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import { markEncrypted, png, renameEntry, svg, uploadSet, zip } from './helpers.ts';

t.test('unsafe or oversized archives are refused whole and nothing is written', async (t) => {
  const ta = await testApp(t, { env: { ICON_ZIP_MAX_ENTRIES: '20', ICON_ZIP_MAX_TOTAL_BYTES: '200000' } });
  const good = { name: 'good.svg', bytes: svg() };
  const cases: { what: string; archive: Buffer; status: number; code: string; message: RegExp }[] = [
    {
      what: 'a zip bomb by ratio',
      archive: await zip([good, { name: 'bomb.svg', bytes: Buffer.alloc(150_000, 0x20) }]),
      status: 413,
      code: 'ZIP_LIMIT_EXCEEDED',
      message: /expands \d+ times.*at most 100/,
    },
    {
      what: 'a zip-slip entry',
      archive: renameEntry(
        await zip([good, { name: 'xx/evil.svg', bytes: svg() }]),
        'xx/evil.svg',
        '../evil.svg',
      ),
      status: 400,
      code: 'ZIP_UNSAFE_ENTRY',
      message: /invalid relative path/,
    },
    {
      what: 'an absolute path',
      archive: renameEntry(
        await zip([good, { name: 'etc/evil.svg', bytes: svg() }]),
        'etc/evil.svg',
        '/tc/evil.svg',
      ),
      status: 400,
      code: 'ZIP_UNSAFE_ENTRY',
      message: /absolute path/,
    },
    {
      what: 'a symlink entry',
      archive: await zip([good, { name: 'link.svg', bytes: Buffer.from('/etc/passwd'), mode: 0o120777 }]),
      status: 400,
      code: 'ZIP_UNSAFE_ENTRY',
      message: /"link\.svg" is a symbolic link/,
    },
    {
      what: 'an encrypted entry',
      archive: markEncrypted(await zip([good])),
      status: 400,
      code: 'ZIP_UNSAFE_ENTRY',
      message: /encrypted/,
    },
    {
      what: 'too many entries',
      archive: await zip(Array.from({ length: 21 }, (_, i) => ({ name: `icon-${i}.svg`, bytes: svg() }))),
      status: 413,
      code: 'ZIP_LIMIT_EXCEEDED',
      message: /21 entries; at most 20/,
    },
    {
      what: 'one entry over 1 MB',
      archive: await zip([
        good,
        { name: 'huge.png', bytes: Buffer.concat([png(), Buffer.alloc(1_100_000)]), store: true },
      ]),
      status: 413,
      code: 'ZIP_LIMIT_EXCEEDED',
      message: /one entry may be at most 1048576/,
    },
    {
      what: 'too many bytes in all',
      archive: await zip(
        Array.from({ length: 5 }, (_, i) => ({
          name: `p${i}.png`,
          bytes: Buffer.concat([png(), Buffer.alloc(50_000, i)]),
          store: true,
        })),
      ),
      status: 413,
      code: 'ZIP_LIMIT_EXCEEDED',
      message: /more than 200000 bytes/,
    },
    {
      what: 'not a zip',
      archive: Buffer.from('PK but not really'),
      status: 400,
      code: 'ZIP_INVALID',
      message: /not a readable zip/,
    },
  ];
  for (const c of cases) {
    const response = await ta.asOwner(uploadSet('attack', c.archive));
    t.equal(response.statusCode, c.status, `${c.what}: ${response.body}`);
    t.equal(response.json().code, c.code, c.what);
    t.match(response.json().message, c.message, c.what);
  }
  t.same(await ta.sql`select name from icon_sets`, [], 'no set was created');
  t.same(await ta.sql`select name from icon_files`, [], 'no icon was stored');
  const fine = await ta.asOwner(
    uploadSet('fine', await zip(Array.from({ length: 20 }, (_, i) => ({ name: `i${i}.svg`, bytes: svg() })))),
  );
  t.equal(fine.statusCode, 201, 'exactly at the entry limit is fine');
});

t.test(
  'upload by URL goes through the guard: loopback is refused unless the test-only switch is on',
  async (t) => {
    const archive = await zip([
      { name: 'cloud.svg', bytes: svg() },
      { name: 'disk.png', bytes: png() },
    ]);
    const origin = await startUpstream(t, (request, response) => {
      if (request.url === '/set.zip') {
        response.writeHead(200, { 'content-type': 'application/zip' });
        response.end(archive);
        return;
      }
      response.writeHead(404).end();
    });

    const guarded = await testApp(t);
    for (const url of [
      `${origin.url}/set.zip`,
      'http://localhost:9/set.zip',
      'http://169.254.169.254/latest.zip',
      'http://10.0.0.1/x.zip',
    ]) {
      const refused = await guarded.asOwner({
        method: 'POST',
        url: '/api/icon-sets',
        payload: { name: 'remote', url },
      });
      t.equal(refused.statusCode, 400, `${url}: ${refused.body}`);
      t.equal(refused.json().code, 'URL_REFUSED');
    }
    const scheme = await guarded.asOwner({
      method: 'POST',
      url: '/api/icon-sets',
      payload: { name: 'remote', url: 'file:///etc/passwd' },
    });
    t.equal(scheme.json().code, 'URL_REFUSED');
    t.equal(origin.requests.length, 0, 'the loopback origin was never contacted');
    const badBody = await guarded.asOwner({
      method: 'POST',
      url: '/api/icon-sets',
      payload: { name: 'remote' },
    });
    t.equal(badBody.statusCode, 400);
    t.match(badBody.json().message, /url/);

    const open = await testApp(t, { env: { VOID_INGEST_ALLOW_PRIVATE: '1' } });
    const fetched = await open.asOwner({
      method: 'POST',
      url: '/api/icon-sets',
      payload: { name: 'remote', url: `${origin.url}/set.zip` },
    });
    t.equal(fetched.statusCode, 201, fetched.body);
    t.equal(fetched.json().set.icon_count, 2);
    t.equal(origin.requests.length, 1);
    const missing = await open.asOwner({
      method: 'POST',
      url: '/api/icon-sets',
      payload: { name: 'other', url: `${origin.url}/none.zip` },
    });
    t.equal(missing.statusCode, 502);
    t.equal(missing.json().code, 'ICON_SET_FETCH_FAILED');
    t.same(
      (await open.sql`select name from icon_sets order by name`).map((r) => r.name),
      ['remote'],
    );
  },
);

t.test('upload by URL reaches exactly the private addresses INGEST_ALLOW_PRIVATE lists', async (t) => {
  const archive = await zip([{ name: 'lan.svg', bytes: svg() }]);
  const serve = (request: { url?: string }, response: import('node:http').ServerResponse) => {
    response.writeHead(request.url === '/set.zip' ? 200 : 404, { 'content-type': 'application/zip' });
    response.end(request.url === '/set.zip' ? archive : undefined);
  };
  const listed = await startUpstream(t, serve, '127.0.0.2');
  const unlisted = await startUpstream(t, serve, '127.0.0.3');
  const ta = await testApp(t, { env: { INGEST_ALLOW_PRIVATE: '127.0.0.2' } });

  const fetched = await ta.asOwner({
    method: 'POST',
    url: '/api/icon-sets',
    payload: { name: 'lan', url: `${listed.url}/set.zip` },
  });
  t.equal(fetched.statusCode, 201, fetched.body);
  t.equal(fetched.json().set.icon_count, 1);
  const refused = await ta.asOwner({
    method: 'POST',
    url: '/api/icon-sets',
    payload: { name: 'elsewhere', url: `${unlisted.url}/set.zip` },
  });
  t.equal(refused.statusCode, 400, refused.body);
  t.equal(refused.json().code, 'URL_REFUSED');
  t.equal(unlisted.requests.length, 0, 'an address the list does not name is never contacted');
});
