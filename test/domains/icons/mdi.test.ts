// Material Design icons (mdi:<name>): rendered here from the installed set as SVG and PNG, in the colour asked for,
// and accepted as iconRefs wherever one is written, only when the set has the icon.
import t from 'tap';
import { iconRefProblem } from '../../../domains/icons/icon-ref.ts';
import { testApp } from '../../helpers/app.ts';
import { pngSize } from './helpers.ts';

const ta = await testApp(t);

t.test('an mdi icon as SVG, in its default colour or ?color=', async (t) => {
  const plain = await ta.anon({ method: 'GET', url: '/api/icons/mdi/home.svg' });
  t.equal(plain.statusCode, 200);
  t.equal(plain.headers['content-type'], 'image/svg+xml');
  t.match(plain.body, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*viewBox="0 0 24 24"/);
  t.match(plain.body, /<path fill="#9ca3af" d="M10 20v-6h4v6h5v-8h3L12 3L2 12h3v8z"\/>/);
  t.notMatch(plain.body, /currentColor/);
  const red = await ta.anon({ method: 'GET', url: '/api/icons/mdi/home.svg?color=%23FF0000' });
  t.match(red.body, /fill="#ff0000"/);
  // An alias of the set names its icon.
  const alias = await ta.anon({ method: 'GET', url: '/api/icons/mdi/home-outline.svg' });
  t.equal(alias.statusCode, 200);
  const unknown = await ta.anon({ method: 'GET', url: '/api/icons/mdi/no-such-icon-here.svg' });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().code, 'ICON_UNKNOWN');
  const bad = await ta.anon({ method: 'GET', url: '/api/icons/mdi/..%2Fetc.svg' });
  t.equal(bad.statusCode, 404);
});

t.test('an mdi icon as PNG at the size asked, a colour of its own per ?color=', async (t) => {
  const small = await ta.anon({ method: 'GET', url: '/api/icons/mdi/docker.png?size=48' });
  t.equal(small.statusCode, 200);
  t.equal(small.headers['content-type'], 'image/png');
  t.same(pngSize(small.rawPayload), { width: 48, height: 48 });
  const large = await ta.anon({ method: 'GET', url: '/api/icons/mdi/docker.png?size=200' });
  t.same(pngSize(large.rawPayload), { width: 256, height: 256 }, 'snapped up');
  const green = await ta.anon({ method: 'GET', url: '/api/icons/mdi/docker.png?size=48&color=00ff00' });
  t.equal(green.statusCode, 200);
  t.not(green.headers.etag, small.headers.etag, 'another colour is another image');
  const again = await ta.anon({
    method: 'GET',
    url: '/api/icons/mdi/docker.png?size=48',
    headers: { 'if-none-match': String(small.headers.etag) },
  });
  t.equal(again.statusCode, 304);
  t.equal((await ta.anon({ method: 'GET', url: '/api/icons/mdi/nope-nope-nope.png' })).statusCode, 404);
});

t.test('mdi iconRefs are checked wherever an iconRef is written', async (t) => {
  t.equal(await iconRefProblem(ta.sql, 'mdi:home'), null);
  t.match(await iconRefProblem(ta.sql, 'mdi:no-such-icon-here'), { kind: 'missing' });
  const app = await ta.asOwner({
    method: 'POST',
    url: '/api/apps',
    payload: { name: 'Home', href: 'https://home.lan', icon: 'mdi:home' },
  });
  t.equal(app.statusCode, 201);
  t.match(app.json(), { icon: 'mdi:home', icon_url: '/api/icons/mdi/home.svg' });
  const missing = await ta.asOwner({
    method: 'POST',
    url: '/api/apps',
    payload: { name: 'x', href: 'https://x.lan', icon: 'mdi:no-such-icon-here' },
  });
  t.equal(missing.statusCode, 400);
  t.equal(missing.json().code, 'ICON_NOT_FOUND');
  const service = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'NAS', kind: 'http', url: 'http://127.0.0.1:9/', icon: 'mdi:nas' },
  });
  t.equal(service.statusCode, 201, service.body);
  const device = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'NAS2', kind: 'http', url: 'http://127.0.0.1:9/2', icon: 'mdi:not-an-icon-at-all' },
  });
  t.equal(device.json().code, 'ICON_NOT_FOUND');
});
