// Tests of the outbound-fetch guard. Sockets are only ever opened to 127.0.0.0/8: the connect gate installed
// below throws for any other address, so even a broken guard cannot reach a private or public host, and names are
// only resolved through the fake DNS (never the system resolver). A refusal test therefore asserts the rule the
// guard named: a guard bug shows up as rule 'connect' (the gate) or as a hit on a local server, not as traffic.

import http from 'node:http';
import net, { type AddressInfo, isIPv4 } from 'node:net';
import t from 'tap';
import { request } from 'undici';
import {
  blockedRange,
  closeSafeFetch,
  FetchRefusedError,
  type LookupFn,
  type SafeFetchOptions,
  safeFetch,
  setTestConnectGate,
  upstreamAgent,
  upstreamLookup,
} from '../../lib/safe-fetch.ts';

const dialled: string[] = [];
setTestConnectGate((address) => {
  dialled.push(address);
  if (!isIPv4(address) || !address.startsWith('127.')) {
    throw new Error(`test gate: refusing to open a socket to ${address}`);
  }
});

const fakeDns: Record<string, string[]> = {
  'evil.test': ['10.0.0.5'],
  'mixed.test': ['93.184.215.14', '10.0.0.6'],
  'metadata.test': ['169.254.169.254'],
  'loop6.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'site.test': ['127.0.0.2'],
  'belt.test': ['127.0.0.2'],
};
const lookups: string[] = [];
const lookup: LookupFn = async (name) => {
  lookups.push(name);
  const answers = fakeDns[name];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: isIPv4(address) ? 4 : 6 }));
};
// 127.0.0.2 plays a public site; 127.0.0.1 stays what it is, a blocked loopback address.
const treatAsPublic = (address: string) => address === '127.0.0.2';

function fetchT(url: string, options: SafeFetchOptions = {}) {
  return safeFetch(url, { lookup, ...options });
}

async function refusalOf(promise: Promise<unknown>): Promise<FetchRefusedError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FetchRefusedError) return err;
    throw err;
  }
  throw new Error('expected the fetch to be refused, but it resolved');
}

// --- local origin servers --------------------------------------------------------------------------------------

const hits: Record<string, number> = { a: 0, b: 0 };
const servers: http.Server[] = [];

function handler(name: string): http.RequestListener {
  return (req, res) => {
    hits[name]++;
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const path = url.pathname;
    const chain = /^\/chain\/(\d+)$/.exec(path);
    if (chain) {
      const left = Number(chain[1]);
      if (left === 0) return void res.end('end of chain');
      res.writeHead(302, { location: `/chain/${left - 1}` });
      return void res.end();
    }
    if (path === '/ok') return void res.end('hello');
    if (path === '/not-found') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('nope');
    }
    if (path === '/to') {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), {
        location: url.searchParams.get('u') ?? '/',
      });
      return void res.end('redirecting');
    }
    if (path === '/rel/a/b') {
      res.writeHead(302, { location: '../c?x=1' });
      return void res.end();
    }
    if (path === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
      return;
    }
    if (path === '/slow-headers') {
      const timer = setTimeout(() => res.end('late'), 5000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/slow-body') {
      res.writeHead(200);
      res.write('first chunk, then silence');
      return;
    }
    if (path === '/drip') {
      res.writeHead(200);
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (path === '/huge') {
      // Chunked, no Content-Length; writes until the client hangs up (or 256 MiB, as a stop for a broken client).
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      const pump = () => {
        while (!res.destroyed && sent < 256 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    if (path === '/big-length') {
      res.writeHead(200, { 'content-length': String(10 * 1024 ** 3) });
      res.write('x');
      return;
    }
    const exact = /^\/bytes\/(\d+)$/.exec(path);
    if (exact) return void res.end(Buffer.alloc(Number(exact[1]), 0x62));
    res.writeHead(500);
    res.end(`no route ${path}`);
  };
}

async function listen(name: string, host: string): Promise<number> {
  const server = http.createServer(handler(name));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

const portA = await listen('a', '127.0.0.1');
const portB = await listen('b', '127.0.0.2');
const A = `http://127.0.0.1:${portA}`;
const B = `http://127.0.0.2:${portB}`;

t.teardown(async () => {
  await closeSafeFetch();
  setTestConnectGate(null);
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

// --- address ranges --------------------------------------------------------------------------------------------

t.test('blockedRange names the range, null only for public unicast', async (t) => {
  const publicOnes = ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'];
  for (const address of publicOnes) t.equal(blockedRange(address), null, address);
  const cases: Record<string, string> = {
    '127.0.0.1': 'loopback',
    '10.1.2.3': 'private',
    '172.16.0.1': 'private',
    '192.168.1.1': 'private',
    '169.254.169.254': 'linkLocal',
    '100.64.0.1': 'carrierGradeNat',
    '0.0.0.0': 'unspecified',
    '255.255.255.255': 'broadcast',
    '224.0.0.1': 'multicast',
    '240.0.0.1': 'reserved',
    '192.0.2.1': 'reserved',
    '198.18.0.1': 'reserved',
    '::1': 'loopback',
    '::': 'unspecified',
    'fc00::1': 'uniqueLocal',
    'fd12:3456::1': 'uniqueLocal',
    'fe80::1': 'linkLocal',
    'fec0::1': 'deprecatedSiteLocal',
    'ff02::1': 'multicast',
    '2001:db8::1': 'reserved',
    '::ffff:127.0.0.1': 'ipv4Mapped:loopback',
    '::ffff:a00:1': 'ipv4Mapped:private',
    '::ffff:0:a9fe:a9fe': 'rfc6145:linkLocal',
    '64:ff9b::a00:1': 'rfc6052:private',
    '64:ff9b:1::808:808': 'rfc6052',
    '2002:7f00:1::1': '6to4:loopback',
    '2002:808:808::1': '6to4',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2': 'teredo',
    '::7f00:1': 'reserved',
    '[::1]': 'loopback',
    '0177.0.0.1': 'invalid',
    'not-an-address': 'invalid',
  };
  for (const [address, range] of Object.entries(cases)) t.equal(blockedRange(address), range, address);
});

// --- rules decided before connecting ---------------------------------------------------------------------------

t.test('every spelling of a blocked IP literal is refused before any socket is opened', async (t) => {
  const urls = [
    `${A}/ok`,
    `http://2130706433:${portA}/ok`,
    `http://0177.0.0.1:${portA}/ok`,
    `http://0x7f.0.0.1:${portA}/ok`,
    `http://0x7f000001:${portA}/ok`,
    `http://0x7f.1:${portA}/ok`,
    `http://127.1:${portA}/ok`,
    `http://127.0.0.1.:${portA}/ok`,
    `http://[::1]:${portA}/ok`,
    `http://[::ffff:127.0.0.1]:${portA}/ok`,
    `http://[::ffff:7f00:1]:${portA}/ok`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${portA}/ok`,
    `http://[::127.0.0.1]:${portA}/ok`,
    'http://0/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://10.0.0.1/',
    'http://10.1/',
    'http://012.0.0.1/',
    'http://167772161/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0xa9fea9fe/',
    'http://[::ffff:169.254.169.254]/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://240.0.0.1/',
    'http://192.0.2.10/',
    'http://198.51.100.7/',
    'http://198.18.0.1/',
    'http://[64:ff9b::a00:1]/',
    'http://[2002:a00:1::]/',
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
    'http://[2001:db8::1]/',
    'https://10.0.0.1/',
    'https://[::1]/',
  ];
  const before = { dialled: dialled.length, hits: hits.a };
  for (const url of urls) {
    const err = await refusalOf(fetchT(url));
    t.equal(err.rule, 'blocked_address', `${url}: ${err.message}`);
    t.match(err.message, /is in a blocked range \(/, url);
  }
  t.equal(dialled.length, before.dialled, 'no socket was even attempted');
  t.equal(hits.a, before.hits, 'the loopback server saw nothing');

  const err = await refusalOf(fetchT('http://10.0.0.1/'));
  t.equal(err.message, 'refused http://10.0.0.1/: address 10.0.0.1 is in a blocked range (private)');
  t.equal(err.url, 'http://10.0.0.1/');
});

t.test('only http and https are fetched', async (t) => {
  for (const url of [
    'file:///etc/passwd',
    'ftp://example.com/file',
    'gopher://127.0.0.1:70/',
    'data:text/plain,hello',
    'javascript:alert(1)',
    `ws://127.0.0.1:${portA}/`,
  ]) {
    const err = await refusalOf(fetchT(url, { allowPrivate: true }));
    t.equal(err.rule, 'scheme', url);
  }
  t.equal((await refusalOf(fetchT('not a url'))).rule, 'url');
  t.equal((await refusalOf(fetchT('/relative/path'))).rule, 'url');
});

t.test('credentials in the URL are refused and not repeated in the error', async (t) => {
  const hitsBefore = hits.a;
  const err = await refusalOf(fetchT(`http://user:s3cret@127.0.0.1:${portA}/ok`, { allowPrivate: true }));
  t.equal(err.rule, 'credentials');
  t.notMatch(err.message, /s3cret|user/);
  t.notMatch(err.url, /s3cret/);
  t.equal(hits.a, hitsBefore);
});

t.test('names resolving to a blocked address are refused, even when one answer is public', async (t) => {
  const before = dialled.length;
  const evil = await refusalOf(fetchT(`http://evil.test:${portA}/ok`));
  t.equal(evil.rule, 'blocked_address');
  t.match(evil.message, 'evil.test resolves to 10.0.0.5, which is in a blocked range (private)');
  const mixed = await refusalOf(fetchT('https://mixed.test/'));
  t.equal(mixed.rule, 'blocked_address');
  t.match(mixed.message, '10.0.0.6');
  for (const name of ['metadata.test', 'loop6.test', 'mapped.test']) {
    t.equal((await refusalOf(fetchT(`http://${name}:${portA}/ok`))).rule, 'blocked_address', name);
  }
  t.equal(dialled.length, before, 'no socket was attempted');

  const missing = await refusalOf(fetchT('http://nowhere.test/'));
  t.equal(missing.rule, 'dns');
  t.match(missing.message, 'nowhere.test did not resolve (ENOTFOUND)');
  const empty = await refusalOf(fetchT('http://empty.test/', { lookup: async () => [] }));
  t.equal(empty.rule, 'dns');
});

// --- real local servers ----------------------------------------------------------------------------------------

t.test('a loopback server is reached only with allowPrivate', async (t) => {
  const before = hits.a;
  t.equal((await refusalOf(fetchT(`${A}/ok`))).rule, 'blocked_address');
  t.equal(hits.a, before);
  const res = await fetchT(`${A}/ok`, { allowPrivate: true });
  t.equal(res.status, 200);
  t.equal(res.body.toString(), 'hello');
  t.equal(res.url, `${A}/ok`);
  t.same(res.redirects, []);
  t.equal(hits.a, before + 1);
});

t.test('a name is connected at the address that was checked, with its own Host header', async (t) => {
  const lookupsBefore = lookups.length;
  const res = await fetchT(`http://site.test:${portB}/echo`, { treatAsPublic });
  t.equal(res.status, 200);
  t.equal(res.contentType, 'application/json');
  const echoed = JSON.parse(res.body.toString()) as { headers: Record<string, string> };
  t.equal(echoed.headers.host, `site.test:${portB}`);
  t.match(echoed.headers['user-agent'], /ops-hub/);
  t.equal(dialled.at(-1), '127.0.0.2');
  // One resolution serves both the check and the connection: no second answer can be slipped in between.
  t.same(lookups.slice(lookupsBefore), ['site.test']);
});

t.test('the connected peer is checked again after connecting', async (t) => {
  // Counts as public for the pre-connect check only, then as loopback: stands in for any earlier step going wrong.
  let calls = 0;
  const onceOnly = (address: string) => address === '127.0.0.2' && calls++ === 0;
  const err = await refusalOf(fetchT(`http://belt.test:${portB}/ok`, { treatAsPublic: onceOnly }));
  t.equal(err.rule, 'blocked_address');
  t.match(err.message, 'connected peer 127.0.0.2 is in a blocked range (loopback)');
});

t.test('HTTP error statuses are returned, not thrown', async (t) => {
  const res = await fetchT(`${A}/not-found`, { allowPrivate: true });
  t.equal(res.status, 404);
  t.equal(res.body.toString(), 'nope');
  t.equal(res.contentType, 'text/plain');
});

t.test('a connection failure is reported as such', async (t) => {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  const err = await refusalOf(fetchT(`http://127.0.0.1:${port}/`, { allowPrivate: true }));
  t.equal(err.rule, 'connect');
  t.match(err.message, 'ECONNREFUSED');
});

// --- redirects -------------------------------------------------------------------------------------------------

t.test('redirects: five are followed, a sixth is refused', async (t) => {
  const res = await fetchT(`${A}/chain/5`, { allowPrivate: true });
  t.equal(res.status, 200);
  t.equal(res.body.toString(), 'end of chain');
  t.equal(res.url, `${A}/chain/0`);
  t.same(
    res.redirects,
    [5, 4, 3, 2, 1].map((n) => `${A}/chain/${n}`),
  );

  const err = await refusalOf(fetchT(`${A}/chain/6`, { allowPrivate: true }));
  t.equal(err.rule, 'redirects');
  t.match(err.message, 'more than 5 redirects');

  t.equal(
    (await refusalOf(fetchT(`${A}/chain/2`, { allowPrivate: true, maxRedirects: 1 }))).rule,
    'redirects',
  );
  t.equal((await fetchT(`${A}/chain/2`, { allowPrivate: true, maxRedirects: 2 })).status, 200);
});

t.test('a relative Location is resolved against the current URL', async (t) => {
  const res = await fetchT(`${A}/rel/a/b`, { allowPrivate: true });
  t.equal(res.url, `${A}/rel/c?x=1`);
  t.same(res.redirects, [`${A}/rel/a/b`]);
});

t.test('301, 302 and 303 turn into a body-less GET; 307 and 308 keep method and body', async (t) => {
  const to = (status: number) => `${A}/to?status=${status}&u=/echo`;
  for (const status of [301, 302, 303]) {
    const res = await fetchT(to(status), {
      allowPrivate: true,
      method: 'POST',
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
    });
    const echoed = JSON.parse(res.body.toString()) as {
      method: string;
      body: string;
      headers: Record<string, string>;
    };
    t.equal(echoed.method, 'GET', `${status}`);
    t.equal(echoed.body, '', `${status}`);
    t.equal(echoed.headers['content-type'], undefined, `${status}`);
  }
  for (const status of [307, 308]) {
    const res = await fetchT(to(status), { allowPrivate: true, method: 'POST', body: 'payload' });
    const echoed = JSON.parse(res.body.toString()) as { method: string; body: string };
    t.equal(echoed.method, 'POST', `${status}`);
    t.equal(echoed.body, 'payload', `${status}`);
  }
});

t.test('credentials headers do not follow a redirect to another origin', async (t) => {
  const headers = { authorization: 'Bearer token-for-a', cookie: 'a=1' };
  const same = await fetchT(`${A}/to?u=/echo`, { allowPrivate: true, headers });
  const sameEcho = JSON.parse(same.body.toString()) as { headers: Record<string, string> };
  t.equal(sameEcho.headers.authorization, 'Bearer token-for-a');
  const cross = await fetchT(`${A}/to?u=${encodeURIComponent(`${B}/echo`)}`, { allowPrivate: true, headers });
  const crossEcho = JSON.parse(cross.body.toString()) as { headers: Record<string, string> };
  t.equal(crossEcho.headers.authorization, undefined);
  t.equal(crossEcho.headers.cookie, undefined);
});

t.test('a public site redirecting to a blocked target is refused at that hop', async (t) => {
  const via = (target: string) => `http://site.test:${portB}/to?u=${encodeURIComponent(target)}`;

  const hitsBefore = hits.a;
  const toLoopback = await refusalOf(fetchT(via(`${A}/ok`), { treatAsPublic }));
  t.equal(toLoopback.rule, 'blocked_address');
  t.equal(toLoopback.url, `${A}/ok`);
  t.match(
    toLoopback.message,
    `address 127.0.0.1 is in a blocked range (loopback) (redirected from ${via('')}`,
  );
  t.equal(hits.a, hitsBefore, 'the blocked target was never asked');

  const dialledBefore = dialled.length;
  const toMetadata = await refusalOf(
    fetchT(via('http://169.254.169.254/latest/meta-data/'), { treatAsPublic }),
  );
  t.equal(toMetadata.rule, 'blocked_address');
  t.equal(toMetadata.url, 'http://169.254.169.254/latest/meta-data/');
  t.match(toMetadata.message, '(linkLocal)');
  t.notOk(dialled.slice(dialledBefore).includes('169.254.169.254'), 'the metadata address was never dialled');

  const toName = await refusalOf(fetchT(via('http://evil.test/'), { treatAsPublic }));
  t.equal(toName.rule, 'blocked_address');
  t.match(toName.message, 'evil.test resolves to 10.0.0.5');

  const toFile = await refusalOf(fetchT(via('file:///etc/passwd'), { treatAsPublic }));
  t.equal(toFile.rule, 'scheme');
  t.equal(toFile.url, 'file:///etc/passwd');

  const toMapped = await refusalOf(fetchT(via(`http://[::ffff:7f00:1]:${portA}/ok`), { treatAsPublic }));
  t.equal(toMapped.rule, 'blocked_address');
  t.equal(hits.a, hitsBefore);
});

// --- time and size limits --------------------------------------------------------------------------------------

t.test('slow response headers hit the headers timeout', async (t) => {
  const started = Date.now();
  const err = await refusalOf(fetchT(`${A}/slow-headers`, { allowPrivate: true, headersTimeoutMs: 300 }));
  t.equal(err.rule, 'timeout');
  t.match(err.message, 'no response headers within 300 ms');
  t.ok(Date.now() - started < 3000);
});

t.test('a stalled body hits the body timeout', async (t) => {
  const err = await refusalOf(fetchT(`${A}/slow-body`, { allowPrivate: true, bodyTimeoutMs: 300 }));
  t.equal(err.rule, 'timeout');
  t.match(err.message, 'stalled for 300 ms');
});

t.test('a body that never ends hits the overall timeout', async (t) => {
  const started = Date.now();
  const err = await refusalOf(fetchT(`${A}/drip`, { allowPrivate: true, totalTimeoutMs: 500 }));
  t.equal(err.rule, 'timeout');
  t.match(err.message, 'not completed within 500 ms');
  t.ok(Date.now() - started < 3000);
});

t.test("the caller's abort signal wins over the refusal mapping", async (t) => {
  const controller = new AbortController();
  const pending = fetchT(`${A}/slow-headers`, { allowPrivate: true, signal: controller.signal });
  controller.abort(new Error('caller gave up'));
  await t.rejects(pending, { message: 'caller gave up' });
});

t.test('a streamed body past the size cap is refused', async (t) => {
  const err = await refusalOf(fetchT(`${A}/huge`, { allowPrivate: true, maxBytes: 1024 * 1024 }));
  t.equal(err.rule, 'too_large');
  t.match(err.message, 'exceeds the limit of 1048576 bytes');
});

t.test('an announced Content-Length past the cap is refused before reading', async (t) => {
  const started = Date.now();
  const err = await refusalOf(fetchT(`${A}/big-length`, { allowPrivate: true, maxBytes: 1024 }));
  t.equal(err.rule, 'too_large');
  t.match(err.message, 'announced Content-Length 10737418240');
  t.ok(Date.now() - started < 2000);
});

t.test('a body of exactly the cap is accepted', async (t) => {
  const res = await fetchT(`${A}/bytes/4096`, { allowPrivate: true, maxBytes: 4096 });
  t.equal(res.body.length, 4096);
  t.equal(
    (await refusalOf(fetchT(`${A}/bytes/4097`, { allowPrivate: true, maxBytes: 4096 }))).rule,
    'too_large',
  );
});

t.test('owner upstreams: the LAN and loopback are dialled, cloud metadata never (every hop)', async (t) => {
  const agent = upstreamAgent({ lookup });
  t.teardown(() => agent.close());
  const get = (url: string) => request(url, { dispatcher: agent });
  const direct = await get(`${A}/ok`);
  t.equal(direct.statusCode, 200, 'loopback, refused to user-supplied URLs, is fine for an owner upstream');
  t.equal(await direct.body.text(), 'hello');
  t.equal((await get(`http://site.test:${portB}/ok`)).statusCode, 200, 'a name is resolved and dialled');

  const dialledBefore = dialled.length;
  const lookupsBefore = lookups.length;
  const refused = [
    [
      'http://169.254.169.254/latest/meta-data/',
      /address 169\.254\.169\.254 is in a blocked range \(cloud metadata\)/,
    ],
    ['http://[fd00:ec2::254]/', /fd00:ec2::254 is in a blocked range \(cloud metadata\)/],
    ['http://[::ffff:169.254.169.254]/', /cloud metadata/],
    [`http://metadata.test:${portA}/`, /metadata\.test resolves to 169\.254\.169\.254/],
    [
      'http://metadata.google.internal/computeMetadata/v1/',
      /metadata\.google\.internal is a cloud metadata host/,
    ],
  ] as const;
  for (const [url, reason] of refused) {
    const error = await get(url).then(
      () => null,
      (err: Error) => err,
    );
    t.match(error?.message, reason, url);
  }
  t.same(dialled.slice(dialledBefore), [], 'no metadata address was dialled');
  t.notOk(
    lookups.slice(lookupsBefore).includes('metadata.google.internal'),
    'a metadata host is not even resolved',
  );

  // A redirect is a new connection through the same connector: the hop to metadata is refused as well.
  const hop = await get(`${A}/to?u=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`);
  t.equal(hop.statusCode, 302);
  await hop.body.dump();
  const followed = await get(String(hop.headers.location)).catch((err: Error) => err);
  t.match((followed as Error).message, /cloud metadata/);

  // Plain sockets (TCP checks) resolve through upstreamLookup.
  const socketError = await new Promise<Error | null>((resolve) => {
    const socket = net.connect({ host: 'localhost', port: portA, lookup: upstreamLookup });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', resolve);
  });
  t.equal(socketError, null, "a name of the owner's resolves and connects");
});

t.test('no test opened a socket outside 127.0.0.0/8', async (t) => {
  t.ok(dialled.length > 0);
  t.same(
    dialled.filter((address) => !address.startsWith('127.')),
    [],
  );
});
