// Brand icons and the local cache: simple-icons rendered to PNG here, at several sizes and colours, cached in memory
// and on disk; set icons first; fallback tiles; search; iconRefs; and nothing contacts any outside host.
import dns from 'node:dns';
import net from 'node:net';
import t from 'tap';
import { assertIconRef, iconRefProblem } from '../../../domains/icons/icon-ref.ts';
import { renderStats, tileColour } from '../../../domains/icons/render.ts';
import { testApp } from '../../helpers/app.ts';
import { png, pngSize, svg, uploadSet, zip } from './helpers.ts';

t.test('brand icons render locally at the size asked, and a cache hit renders nothing', async (t) => {
  const ta = await testApp(t);
  for (const [size, rendered] of [
    [16, 16],
    [64, 64],
    [200, 256],
    [512, 512],
  ]) {
    const response = await ta.anon({ method: 'GET', url: `/api/icons/github.png?size=${size}` });
    t.equal(response.statusCode, 200);
    t.equal(response.headers['content-type'], 'image/png');
    t.same(
      pngSize(response.rawPayload),
      { width: rendered, height: rendered },
      `${size}: ${rendered}×${rendered}`,
    );
  }
  const standard = await ta.anon({ method: 'GET', url: '/api/icons/github.png' });
  t.same(pngSize(standard.rawPayload), { width: 64, height: 64 }, 'default size 64');
  t.equal(standard.headers['cache-control'], 'no-cache');
  t.equal(standard.headers['x-content-type-options'], 'nosniff');
  const etag = String(standard.headers.etag);
  t.match(etag, /^"[A-Za-z0-9_-]{43}"$/, 'a strong ETag');

  const before = renderStats.renders;
  const hit = await ta.anon({ method: 'GET', url: '/api/icons/github.png' });
  t.ok(hit.rawPayload.equals(standard.rawPayload));
  const revalidated = await ta.anon({
    method: 'GET',
    url: '/api/icons/github.png',
    headers: { 'if-none-match': etag },
  });
  t.equal(revalidated.statusCode, 304);
  t.equal(renderStats.renders, before, 'cache hits render nothing');

  const red = await ta.anon({ method: 'GET', url: '/api/icons/github.png?color=%23ff0000' });
  const red2 = await ta.anon({ method: 'GET', url: '/api/icons/github.png?color=FF0000' });
  t.equal(renderStats.renders, before + 1, 'one render for one colour, with or without #');
  t.ok(red.rawPayload.equals(red2.rawPayload));
  t.notOk(red.rawPayload.equals(standard.rawPayload), 'another colour, other pixels');
  t.not(red.headers.etag, etag);

  for (const bad of ['size=8', 'size=513', 'size=abc', 'color=red', 'color=%23ff00']) {
    const response = await ta.anon({ method: 'GET', url: `/api/icons/github.png?${bad}` });
    t.equal(response.statusCode, 400, bad);
  }

  // A second app on the same data directory: an empty memory cache, the disk cache still there.
  const restarted = await testApp(t, { env: { DATA_DIR: ta.dataDir } });
  const fromDisk = await restarted.anon({ method: 'GET', url: '/api/icons/github.png' });
  t.ok(fromDisk.rawPayload.equals(standard.rawPayload));
  t.equal(fromDisk.headers.etag, etag);
  t.equal(renderStats.renders, before + 1, 'the disk cache serves after a restart without rendering');

  const vector = await ta.anon({ method: 'GET', url: '/api/icons/github.svg?color=00ff00' });
  t.equal(vector.statusCode, 200);
  t.equal(vector.headers['content-type'], 'image/svg+xml');
  t.match(vector.headers['content-security-policy'], /sandbox/);
  t.match(vector.body, /fill="#00ff00"/);
});

t.test('unknown names: 404, or a generated tile with ?fallback=1', async (t) => {
  const ta = await testApp(t);
  const missing = await ta.anon({ method: 'GET', url: '/api/icons/no-such-brand-xyz.png' });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'ICON_UNKNOWN');
  t.equal(
    (await ta.anon({ method: 'GET', url: '/api/icons/No%20Such.png?fallback=1' })).statusCode,
    404,
    'a name no icon could have',
  );
  const tile = await ta.anon({ method: 'GET', url: '/api/icons/my-nas.png?fallback=1&size=128' });
  t.equal(tile.statusCode, 200);
  t.same(pngSize(tile.rawPayload), { width: 128, height: 128 });
  t.match(tile.headers.etag, /^"/);
  const other = await ta.anon({ method: 'GET', url: '/api/icons/zigbee-hub.png?fallback=1&size=128' });
  t.notOk(other.rawPayload.equals(tile.rawPayload), 'another name, another tile');
  t.equal(tileColour('my-nas'), tileColour('my-nas'), 'a name keeps its colour');
  t.not(tileColour('my-nas'), tileColour('zigbee-hub'));
  const tileSvg = await ta.anon({ method: 'GET', url: '/api/icons/my-nas.svg?fallback=1' });
  t.match(tileSvg.body, new RegExp(`fill="${tileColour('my-nas')}"`));
  t.match(tileSvg.body, />M<\/text>/, 'the first letter');
  t.equal((await ta.anon({ method: 'GET', url: '/api/icons/my-nas.svg' })).statusCode, 404);
});

t.test('set icons come before brands; ?set= picks the set; search and iconRefs see both', async (t) => {
  const ta = await testApp(t);
  const own = png(32, '#00aa00');
  await ta.asOwner(
    uploadSet(
      'mine',
      await zip([
        { name: 'github.png', bytes: own },
        { name: 'router.svg', bytes: svg() },
      ]),
    ),
  );
  const github = await ta.anon({ method: 'GET', url: '/api/icons/github.png' });
  t.ok(github.rawPayload.equals(own), 'the set icon, as uploaded');
  const router = await ta.anon({ method: 'GET', url: '/api/icons/router.png?size=96' });
  t.same(pngSize(router.rawPayload), { width: 96, height: 96 }, 'a set SVG rendered at the size asked');
  const picked = await ta.anon({ method: 'GET', url: '/api/icons/github.png?set=other' });
  t.notOk(picked.rawPayload.equals(own), 'not in that set: the brand');
  t.equal(
    (await ta.anon({ method: 'GET', url: '/api/icons/router.svg' })).headers['content-type'],
    'image/svg+xml',
  );

  const search = await ta.anon({ method: 'GET', url: '/api/icons?q=git&limit=100' });
  t.equal(search.statusCode, 200);
  const refs = search.json().items.map((hit: { ref: string }) => hit.ref);
  t.ok(refs.includes('brand:github'));
  t.ok(refs.includes('set:mine:github'));
  t.ok(refs.includes('brand:gitlab'));
  t.ok(refs.indexOf('brand:git') < refs.indexOf('brand:gitlab'), 'the exact name first');
  t.match(
    search.json().items.find((hit: { ref: string }) => hit.ref === 'brand:github'),
    {
      source: 'brand',
      title: 'GitHub',
      hex: '181717',
      url: '/api/icons/github.svg',
    },
  );
  const mdi = await ta.anon({ method: 'GET', url: '/api/icons?q=router-wireless&limit=100' });
  t.match(
    mdi.json().items.find((hit: { ref: string }) => hit.ref === 'mdi:router-wireless'),
    { source: 'mdi', url: '/api/icons/mdi/router-wireless.svg' },
    'Material Design icons are found too',
  );
  const page = await ta.anon({ method: 'GET', url: '/api/icons?q=a&limit=5&offset=5' });
  t.equal(page.json().items.length, 5);
  t.ok(page.json().total > 100);

  t.equal(await iconRefProblem(ta.sql, 'brand:github'), null);
  t.equal(await iconRefProblem(ta.sql, 'set:mine:router'), null);
  t.equal(await iconRefProblem(ta.sql, null), null);
  t.match(await iconRefProblem(ta.sql, 'brand:not-a-brand'), { kind: 'missing', message: /no brand icon/ });
  t.match(await iconRefProblem(ta.sql, 'set:mine:nope'), { kind: 'missing', message: /has no icon "nope"/ });
  t.match(await iconRefProblem(ta.sql, 'set:other:router'), { message: /icon set "other"/ });
  t.match(await iconRefProblem(ta.sql, 'github'), { kind: 'malformed', message: /not an iconRef/ });
  await t.rejects(assertIconRef(ta.sql, 'brand:nope', 'icon'), {
    code: 'ICON_NOT_FOUND',
    statusCode: 400,
    message: /^icon: brand:nope names no brand icon/,
  });
  await t.rejects(assertIconRef(ta.sql, 'github', 'avatar'), {
    code: 'ICON_REF_INVALID',
    statusCode: 400,
    message: /^avatar: /,
  });
});

t.test('with every outbound connection refused, every icon is still served', async (t) => {
  const ta = await testApp(t);
  await ta.asOwner(
    uploadSet(
      'offline',
      await zip([
        { name: 'box.svg', bytes: svg() },
        { name: 'nas.png', bytes: png() },
      ]),
    ),
  );
  const attempts: string[] = [];
  const connect = net.Socket.prototype.connect;
  const lookup = dns.lookup;
  const loopback = (host: unknown) => host === undefined || /^(127\.|::1$|localhost$)/.test(String(host));
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const options = args[0];
    const target =
      typeof options === 'object' && options !== null
        ? ((options as net.TcpNetConnectOpts).host ?? (options as net.IpcNetConnectOpts).path)
        : args[1];
    const isPipe = typeof options === 'object' && options !== null && 'path' in options;
    if (!isPipe && !loopback(target)) {
      attempts.push(String(target));
      throw new Error(`outbound connection to ${String(target)} refused by the test`);
    }
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
  (dns as { lookup: unknown }).lookup = (hostname: string, ...rest: unknown[]) => {
    attempts.push(`dns:${hostname}`);
    const callback = rest.at(-1) as (error: Error) => void;
    callback(new Error(`DNS lookup of ${hostname} refused by the test`));
  };
  t.teardown(() => {
    net.Socket.prototype.connect = connect;
    (dns as { lookup: unknown }).lookup = lookup;
  });
  for (const url of [
    '/api/icons/cloudflare.png',
    '/api/icons/proxmox.png?size=256&color=ff6600',
    '/api/icons/homeassistant.svg',
    '/api/icons/box.png',
    '/api/icons/nas.png',
    '/api/icons/unknown-thing.png?fallback=1',
    '/api/icon-sets/offline/box.svg',
    '/api/icon-sets/offline/nas.png',
    '/api/icons?q=docker',
  ]) {
    t.equal((await ta.anon({ method: 'GET', url })).statusCode, 200, url);
  }
  t.same(attempts, [], 'nothing tried to reach another host');
});
