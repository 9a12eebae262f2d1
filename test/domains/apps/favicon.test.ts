// An app's site icon, found from its href by real HTTP servers on loopback: the page's <link rel="icon"> (an SVG,
// sanitised and rendered), else /favicon.ico (a bitmap ICO converted); a non-image, an over-large file and a private
// address the owner did not allow are refused; what was found is kept and served as PNG, and looked for again only
// on the owner's request.
import { inflateSync } from 'node:zlib';
import t from 'tap';
import { createAgent, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

/** A 2x2 ICO holding a 32-bit bitmap: red, green / blue, white (rows stored bottom-up). */
function bitmapIco(): Buffer {
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(2, 4);
  header.writeInt32LE(4, 8); // height doubled: the AND mask follows the colours
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  // BGRA, bottom row first: blue, white; then top row: red, green.
  const pixels = Buffer.from([255, 0, 0, 255, 255, 255, 255, 255, 0, 0, 255, 255, 0, 255, 0, 255]);
  const mask = Buffer.alloc(8);
  const dib = Buffer.concat([header, pixels, mask]);
  const directory = Buffer.alloc(22);
  directory.writeUInt16LE(0, 0);
  directory.writeUInt16LE(1, 2);
  directory.writeUInt16LE(1, 4);
  directory.set([2, 2, 0, 0], 6);
  directory.writeUInt16LE(1, 10);
  directory.writeUInt16LE(32, 12);
  directory.writeUInt32LE(dib.length, 14);
  directory.writeUInt32LE(22, 18);
  return Buffer.concat([directory, dib]);
}

/** Width, height and the RGBA of the first pixel of an 8-bit RGBA PNG without filters (what the hub writes). */
function readPng(png: Buffer) {
  t.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const idat = png.indexOf('IDAT');
  const length = png.readUInt32BE(idat - 4);
  const rows = inflateSync(png.subarray(idat + 4, idat + 4 + length));
  return { width, height, rows };
}

const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)"><script>alert(2)</script>' +
  '<rect width="10" height="10" fill="#0a0"/></svg>';
const withLinks = await startUpstream(t, (request, response) => {
  if (request.url === '/app/') {
    return void response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        '<html><head><link rel="apple-touch-icon" href="/touch.png">' +
          '<link rel="shortcut icon" href="static/icon.svg"></head><body>App</body></html>',
      );
  }
  if (request.url === '/app/static/icon.svg') {
    return void response.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svg);
  }
  response.writeHead(404).end();
});
let icoServed = true;
const icoOnly = await startUpstream(t, (request, response) => {
  if (request.url === '/favicon.ico' && icoServed) {
    return void response.writeHead(200, { 'content-type': 'image/x-icon' }).end(bitmapIco());
  }
  if (request.url === '/favicon.ico') return void response.writeHead(404).end();
  response
    .writeHead(200, { 'content-type': 'text/html' })
    .end('<html><head><title>No links</title></head></html>');
});
const notImages = await startUpstream(t, (request, response) => {
  if (request.url === '/') {
    return void response
      .writeHead(200, { 'content-type': 'text/html' })
      .end('<link rel="icon" href="/fake.png"><link rel="icon" href="/huge.png">');
  }
  // Says PNG, is HTML; then a real PNG signature over the size limit; then a page as the .ico.
  if (request.url === '/fake.png') {
    return void response.writeHead(200, { 'content-type': 'image/png' }).end('<html>not a png</html>');
  }
  if (request.url === '/huge.png') {
    const huge = Buffer.alloc(400 * 1024);
    Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').copy(huge);
    return void response.writeHead(200, { 'content-type': 'image/png' }).end(huge);
  }
  response.writeHead(200, { 'content-type': 'text/html' }).end('<html>a page</html>');
});

const ta = await testApp(t, { env: { INGEST_ALLOW_PRIVATE: '127.0.0.0/8' } });
async function createApp(name: string, href: string) {
  const response = await ta.asOwner({ method: 'POST', url: '/api/apps', payload: { name, href } });
  t.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string };
}
const icon = (id: string, headers?: Record<string, string>) =>
  ta.asOwner({ method: 'GET', url: `/api/apps/${id}/icon`, headers });

t.test('from the page’s icon link: an SVG, sanitised, rendered and kept as PNG', async (t) => {
  const app = await createApp('Linked', `${withLinks.url}/app/`);
  const response = await icon(app.id);
  t.equal(response.statusCode, 200, response.body);
  t.equal(response.headers['content-type'], 'image/png');
  t.equal(response.headers['x-content-type-options'], 'nosniff');
  const { width } = readPng(response.rawPayload);
  t.equal(width, 128, 'rendered at 128 px');
  t.same(
    withLinks.requests.map((request) => request.url),
    ['/app/', '/app/static/icon.svg'],
    'the icon link comes before the apple-touch-icon and /favicon.ico',
  );
  const again = await icon(app.id, { 'if-none-match': response.headers.etag as string });
  t.equal(again.statusCode, 304, 'revalidated by its ETag');
  t.equal(withLinks.requests.length, 2, 'kept: not fetched again');
  const listed = await ta.asOwner({ method: 'GET', url: `/api/apps/${app.id}` });
  t.equal(listed.json().icon_url, `/api/apps/${app.id}/icon`);
});

t.test('else /favicon.ico: a bitmap ICO converted to PNG', async (t) => {
  const app = await createApp('Ico', `${icoOnly.url}/some/path`);
  const response = await icon(app.id);
  t.equal(response.statusCode, 200, response.body);
  const { width, height, rows } = readPng(response.rawPayload);
  t.same([width, height], [2, 2]);
  t.same([...rows.subarray(1, 9)], [255, 0, 0, 255, 0, 255, 0, 255], 'top row: red, green (top-down now)');
  t.same([...rows.subarray(10, 18)], [0, 0, 255, 255, 255, 255, 255, 255], 'bottom row: blue, white');
});

t.test('a non-image, an over-large file and a page are refused; the owner asks again', async (t) => {
  const app = await createApp('Not images', `${notImages.url}/`);
  const response = await icon(app.id);
  t.equal(response.statusCode, 404);
  t.equal(response.json().code, 'APP_ICON_NOT_FOUND');
  const refreshed = await ta.asOwner({ method: 'POST', url: `/api/apps/${app.id}/icon/refresh` });
  t.equal(refreshed.statusCode, 200);
  t.match(refreshed.json(), { found: false, icon_url: null });
  t.match(refreshed.json().reason, /fake\.png: not an SVG: the root element is <html>/);
  t.match(refreshed.json().reason, /huge\.png: .*(large|bytes)/i);
  t.match(refreshed.json().reason, /favicon\.ico: not an image \(text\/html\)/);
  const [row] = await ta.sql`select favicon from apps where id = ${app.id}`;
  t.equal(row.favicon, null, 'nothing kept');

  const seen = notImages.requests.length;
  t.equal((await icon(app.id)).statusCode, 404);
  t.equal(notImages.requests.length, seen, 'a failed look is not repeated on every read');

  const fromIco = await createApp('Ico later', `${icoOnly.url}/`);
  icoServed = false;
  t.equal((await icon(fromIco.id)).statusCode, 404);
  icoServed = true;
  const found = await ta.asOwner({ method: 'POST', url: `/api/apps/${fromIco.id}/icon/refresh` });
  t.match(found.json(), { found: true, reason: null, icon_url: `/api/apps/${fromIco.id}/icon` });
  t.equal((await icon(fromIco.id)).statusCode, 200, 'found on request');
});

t.test('the guard: a private address the owner did not allow is never fetched', async (t) => {
  // INGEST_ALLOW_PRIVATE lists 127.0.0.0/8 only: ::1 stays refused.
  const ipv6 = await startUpstream(t, (_request, response) => response.writeHead(200).end(), '::1');
  const app = await createApp('Private', `http://[::1]:${ipv6.port}/`);
  const refreshed = await ta.asOwner({ method: 'POST', url: `/api/apps/${app.id}/icon/refresh` });
  t.match(refreshed.json(), { found: false, reason: /refused http:\/\/\[::1\]/ });
  t.equal(ipv6.requests.length, 0, 'no request reached the server');
});

t.test('the owner’s only', async (t) => {
  const app = await createApp('Agents', `${withLinks.url}/app/`);
  const { token: bearer } = await createAgent(ta, { tier: 'read' });
  t.equal((await ta.asAgent(bearer, { method: 'GET', url: `/api/apps/${app.id}/icon` })).statusCode, 403);
  t.equal(
    (await ta.asAgent(bearer, { method: 'POST', url: `/api/apps/${app.id}/icon/refresh` })).statusCode,
    403,
  );
  t.equal((await ta.anon({ method: 'GET', url: `/api/apps/${app.id}/icon` })).statusCode, 401);
});
