// The custom card against real HTTP servers on loopback: a JSON upstream's values picked by JSON Pointers and
// formatted, sent with the card's headers and cached for its interval; a slow upstream, one answering HTML, an error
// status and a closed port each give the card its reason, never a 5xx. The card type is taken by the layout.
import t from 'tap';
import { testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const stats = {
  version: '2.1.0',
  disk: { used: 1610612736, 'ratio/used': 42.345 },
  uptime: 93_784,
  started: '2026-11-20T08:00:00Z',
  items: [{ name: 'first' }, { name: 'second' }],
};
const upstream = await startUpstream(t, (request, response) => {
  if (request.url === '/stats') {
    if (request.headers['x-api-key'] !== 'k3y')
      return void response.writeHead(401).end('{"message":"no key"}');
    return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
  }
  if (request.url === '/html') {
    return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
  }
  if (request.url === '/slow') return void setTimeout(() => response.writeHead(200).end('{}'), 3000);
  response.writeHead(503).end();
});
const ta = await testApp(t, { env: { UPSTREAM_TIMEOUT_MS: '500' } });
const read = (config: object) =>
  ta.asOwner({ method: 'POST', url: '/api/dashboard/custom', payload: config });

t.test('values picked by JSON Pointer and formatted, with the card’s headers', async (t) => {
  const config = {
    url: `${upstream.url}/stats`,
    headers: { 'X-Api-Key': 'k3y' },
    fields: [
      { label: 'Version', pointer: '/version' },
      { label: 'Disk', pointer: '/disk/used', format: 'bytes' },
      { label: 'Used', pointer: '/disk/ratio~1used', format: 'percent' },
      { label: 'Uptime', pointer: '/uptime', format: 'duration' },
      { label: 'Started', pointer: '/started', format: 'date' },
      { label: 'Second', pointer: '/items/1/name' },
      { label: 'Missing', pointer: '/nope', format: 'number' },
    ],
  };
  const response = await read(config);
  t.equal(response.statusCode, 200, response.body);
  t.match(response.json(), { ok: true, message: null });
  t.same(
    response.json().fields.map((field: { label: string; text: string }) => [field.label, field.text]),
    [
      ['Version', '2.1.0'],
      ['Disk', '1.5 GiB'],
      ['Used', '42.3%'],
      ['Uptime', '1d 2h'],
      ['Started', '2026-11-20T08:00:00.000Z'],
      ['Second', 'second'],
      ['Missing', '—'],
    ],
  );
  t.equal(response.json().fields[1].value, 1610612736);
  const seen = upstream.requests.length;
  await read(config);
  t.equal(upstream.requests.length, seen, 'cached for the interval: not fetched again');
  await read({ ...config, interval_s: 10, fields: config.fields.slice(0, 1) });
  t.equal(upstream.requests.length, seen + 1, 'another card config is its own fetch');
});

t.test('every failure is the card’s reason, never a 5xx', async (t) => {
  const fields = [{ label: 'x', pointer: '/x' }];
  const cases: [string, RegExp][] = [
    [`${upstream.url}/html`, /did not answer JSON \(text\/html\)/],
    [`${upstream.url}/slow`, /no answer within 500 ms/],
    [`${upstream.url}/stats`, /HTTP 401 no key/],
    [`${upstream.url}/down`, /HTTP 503/],
    ['http://127.0.0.1:9/', /connection refused/],
  ];
  for (const [url, reason] of cases) {
    const response = await read({ url, fields });
    t.equal(response.statusCode, 200, url);
    t.match(response.json(), { ok: false, fields: [], message: reason }, url);
  }
  const metadata = await read({ url: 'http://169.254.169.254/latest/meta-data/', fields });
  t.match(metadata.json(), { ok: false, message: /refused/ }, 'cloud metadata is never reached');
  const bad = await read({ url: 'file:///etc/passwd', fields });
  t.equal(bad.statusCode, 400, 'http(s) only');
});

t.test('the layout takes a custom card and checks its config', async (t) => {
  const card = (config: object) => ({ mode: 'snap', cards: [{ id: 'c', type: 'custom', size: 4, config }] });
  const saved = await ta.asOwner({
    method: 'PUT',
    url: '/api/dashboard/layout',
    payload: card({ url: `${upstream.url}/stats`, fields: [{ label: 'V', pointer: '/version' }] }),
  });
  t.equal(saved.statusCode, 200, saved.body);
  const refused = await ta.asOwner({
    method: 'PUT',
    url: '/api/dashboard/layout',
    payload: card({ url: `${upstream.url}/stats`, fields: [{ label: 'V', pointer: 'version' }] }),
  });
  t.equal(refused.statusCode, 400);
  t.match(refused.json(), { code: 'LAYOUT_INVALID', message: /card "c": config\.fields/ });
});
