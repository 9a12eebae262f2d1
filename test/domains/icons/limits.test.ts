// What an anonymous caller can make the public icon routes do is bounded: sizes snap to a fixed list, the disk cache
// keeps to ICON_CACHE_MAX_MB by dropping the least recently used renders, and an address without credentials gets
// at most 120 new renders a minute (429 with Retry-After beyond) while cached icons are always served.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import t from 'tap';
import { iconSizes, RenderCache, renderStats } from '../../../domains/icons/render.ts';
import { testApp } from '../../helpers/app.ts';
import { multipart, pngSize, svg, uploadSet, zip } from './helpers.ts';

async function cacheFiles(dir: string): Promise<{ count: number; bytes: number }> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith('.png'));
  const sizes = await Promise.all(names.map(async (name) => (await stat(path.join(dir, name))).size));
  return { count: names.length, bytes: sizes.reduce((sum, size) => sum + size, 0) };
}

/** A real PNG of noise that does not compress: `side`×`side` RGB, about 3·side² bytes. */
function noisePng(side: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.concat(
    Array.from({ length: side }, () => Buffer.concat([Buffer.from([0]), randomBytes(side * 3)])),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows, { level: 0 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

t.test('sizes snap up to a fixed list: one icon has at most ten renders', async (t) => {
  const ta = await testApp(t);
  t.same(iconSizes, [16, 24, 32, 48, 64, 96, 128, 192, 256, 512]);
  const before = renderStats.renders;
  for (let size = 16; size <= 512; size += 1) {
    const response = await ta.asOwner({ method: 'GET', url: `/api/icons/github.png?size=${size}` });
    const expected = iconSizes.find((listed) => listed >= size);
    t.same(pngSize(response.rawPayload).width, expected, `${size} → ${expected}`);
  }
  t.equal(renderStats.renders - before, iconSizes.length, '497 sizes asked for, ten rendered');
  t.equal((await cacheFiles(path.join(ta.dataDir, 'icon-cache'))).count, iconSizes.length);
});

t.test('without credentials: 120 new renders a minute per address, cached icons always served', async (t) => {
  const ta = await testApp(t);
  const colour = (i: number) => i.toString(16).padStart(6, '0');
  const anon = (i: number, remoteAddress = '203.0.113.7') =>
    ta.anon({ method: 'GET', url: `/api/icons/github.png?size=16&color=${colour(i)}`, remoteAddress });
  for (let i = 0; i < 120; i++) {
    const response = await anon(i);
    if (response.statusCode !== 200) t.fail(`render ${i} answered ${response.statusCode}`);
  }
  const refused = await anon(120);
  t.equal(refused.statusCode, 429, 'the 121st new render in the minute is refused');
  t.equal(refused.json().code, 'RATE_LIMITED');
  t.match(refused.json().message, /120 new icon renders a minute/);
  const retryAfter = Number(refused.headers['retry-after']);
  t.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
  t.equal((await anon(0)).statusCode, 200, 'a cached render is still served');
  t.equal((await anon(119)).statusCode, 200);
  t.equal(
    (await ta.anon({ method: 'GET', url: '/api/icons/github.svg', remoteAddress: '203.0.113.7' })).statusCode,
    200,
    'the vector renders nothing and is served',
  );
  const fallback = await ta.anon({
    method: 'GET',
    url: '/api/icons/unknown-thing.png?fallback=1',
    remoteAddress: '203.0.113.7',
  });
  t.equal(fallback.statusCode, 429, 'generated tiles are renders too');
  t.equal((await anon(121, '198.51.100.1')).statusCode, 200, 'another address has its own budget');
  t.equal((await anon(122, '2001:db8:1:2::1')).statusCode, 200);
  const owner = await ta.asOwner({
    method: 'GET',
    url: `/api/icons/github.png?size=16&color=${colour(123)}`,
    remoteAddress: '203.0.113.7',
  });
  t.equal(owner.statusCode, 200, 'a caller with credentials is not counted');
  t.equal((await cacheFiles(path.join(ta.dataDir, 'icon-cache'))).count, 123, 'nothing refused was written');
});

t.test('ICON_CACHE_MAX_MB caps the disk cache; the least recently used go first', async (t) => {
  const ta = await testApp(t, { env: { ICON_CACHE_MAX_MB: '1' } });
  const dir = path.join(ta.dataDir, 'icon-cache');
  // Three PNG icons of about 430 KB: the cache holds two of them.
  const archive = await zip(
    ['a', 'b', 'c'].map((name) => ({ name: `${name}.png`, bytes: noisePng(380), store: true })),
  );
  const up = await ta.asOwner(uploadSet('big', archive));
  t.equal(up.statusCode, 201, up.body.slice(0, 300));
  const get = async (name: string) =>
    (await ta.anon({ method: 'GET', url: `/api/icons/${name}.png?set=big` })).statusCode;
  t.equal(await get('a'), 200);
  t.equal(await get('b'), 200);
  t.equal(await get('a'), 200, 'a is used again: b is now the least recently used');
  t.equal(await get('c'), 200);
  const after = await cacheFiles(dir);
  t.equal(after.count, 2);
  t.ok(after.bytes <= 1024 * 1024, `${after.bytes} bytes on disk, within 1 MB`);
});

t.test('the cache alone: eviction by last use, a cap applied to what is found at start', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-icon-cache-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const made: string[] = [];
  const make = (key: string) => async () => {
    made.push(key);
    return Buffer.alloc(100, key);
  };
  const cache = new RenderCache({ dir, maxDiskBytes: 250 });
  await cache.get('a', make('a'));
  await cache.get('b', make('b'));
  await cache.get('a', make('a'));
  await cache.get('c', make('c'));
  t.same(made, ['a', 'b', 'c'], 'a hit makes nothing');
  t.equal(await cache.diskBytes(), 200);
  t.equal((await cacheFiles(dir)).count, 2);

  await writeFile(path.join(dir, `${'0'.repeat(64)}.png.1.2.tmp`), 'left by a write cut short');
  const smaller = new RenderCache({ dir, maxDiskBytes: 150 });
  t.equal(await smaller.diskBytes(), 100, 'a smaller cap is applied to the files found');
  t.same(await readdir(dir).then((names) => names.filter((name) => name.endsWith('.tmp'))), []);
  made.length = 0;
  const fresh = new RenderCache({ dir, maxDiskBytes: 250 });
  await fresh.get('c', make('c'));
  await fresh.get('a', make('a'));
  t.same(made, ['a'], 'c, the most recently used, stayed on disk; a was dropped');
});

t.test(
  'icon uploads stream to disk and leave nothing behind; one icon is held to the entry limit',
  async (t) => {
    const ta = await testApp(t, { env: { ICON_ZIP_MAX_ENTRY_BYTES: '2048' } });
    const incoming = path.join(ta.dataDir, 'incoming');
    const set = await ta.asOwner(uploadSet('streamed', await zip([{ name: 'a.svg', bytes: svg() }])));
    t.equal(set.statusCode, 201, set.body);
    t.same(await readdir(incoming), [], 'the received zip is removed once the set is stored');
    const add = (bytes: Buffer) =>
      ta.asOwner({
        method: 'POST',
        url: '/api/icon-sets/streamed/icons',
        ...multipart([{ name: 'file', filename: 'b.svg', bytes }]),
      });
    t.equal((await add(svg())).statusCode, 201);
    const big = await add(svg(`<path d="M0 0h9v9z"/>${'<rect width="1" height="1"/>'.repeat(100)}`));
    t.equal(big.statusCode, 413, 'one icon over ICON_ZIP_MAX_ENTRY_BYTES');
    t.match(big.json().message, /ICON_ZIP_MAX_ENTRY_BYTES/);
    t.same(await readdir(incoming), [], 'nothing is left where uploads are received');
  },
);
