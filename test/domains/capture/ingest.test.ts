// ingest.url end to end: a captured URL served by a local origin becomes a searchable source document; failures
// end with a clear last error, permanent ones at once, transient ones after retries. Sockets only ever go to
// 127.0.0.0/8 (the connect gate below refuses anything else), names only resolve through the fake DNS.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIPv4 } from 'node:net';
import t from 'tap';
import { loadConfig } from '../../../config/index.ts';
import { dnsMaxAttempts, fetchFailure, setIngestFetchSeams } from '../../../domains/capture/fetching.ts';
import { capContent } from '../../../lib/extract.ts';
import type { LookupFn } from '../../../lib/safe-fetch.ts';
import { FetchRefusedError, setTestConnectGate } from '../../../lib/safe-fetch.ts';
import { hub } from '../../../modules.ts';
import { startWorker } from '../../../plugins/jobs.ts';
import { PermanentJobError } from '../../../worker/errors.ts';
import { buildTaskList } from '../../../worker/tasks.ts';
import { createSpace, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import { articleHtml, makePdf, prose } from './fixtures.ts';
import { captureState, captureUrl, docsAt, settled } from './helpers.ts';

setTestConnectGate((address) => {
  if (!isIPv4(address) || !address.startsWith('127.')) {
    throw new Error(`test gate: refusing to open a socket to ${address}`);
  }
});
const fakeDns: Record<string, string[]> = {
  'site.test': ['127.0.0.2'],
  'other.test': ['127.0.0.2'],
  'evil.test': ['10.0.0.5'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['127.0.0.2', '192.168.1.10'],
  'loop.test': ['127.0.0.1'],
  'wiki.test': ['127.0.0.1'],
};
const lookup: LookupFn = async (name) => {
  const answers = fakeDns[name];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: 4 }));
};
// 127.0.0.2 plays a public web site; 127.0.0.1 stays loopback, which the guard refuses.
const treatAsPublic = (address: string) => address === '127.0.0.2';
setIngestFetchSeams({ lookup, treatAsPublic });
t.teardown(() => {
  setIngestFetchSeams(null);
  setTestConnectGate(null);
});

let flakyCalls = 0;
let version = 0;
const pdf = makePdf(['Quarterly storage report', 'The pool tank is 81 percent full.'], 'Storage Q3');

const routes = (loopbackUrl: () => string) => (request: IncomingMessage, response: ServerResponse) => {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  const send = (type: string, body: string | Buffer, status = 200) => {
    response.writeHead(status, { 'content-type': type });
    response.end(body);
  };
  switch (path) {
    case '/article':
      return send(
        'text/html; charset=utf-8',
        articleHtml('Tuning the heat pump for a quiet winter', prose('heat pump')),
      );
    case '/notes.txt':
      return send('text/plain', 'Zebra crossing maintenance log\nrepainted on Tuesday\n');
    case '/readme.md':
      return send('text/markdown', '# Garden irrigation\n\nDrip lines and *timers* for the tomatoes.\n');
    case '/report.pdf':
      return send('application/pdf', pdf);
    case '/hop':
      response.writeHead(302, { location: '/article' });
      return response.end();
    case '/to-other':
      response.writeHead(301, { location: `http://other.test:${request.socket.localPort}/readme.md` });
      return response.end();
    case '/to-loopback':
      response.writeHead(302, { location: `${loopbackUrl()}/article` });
      return response.end();
    case '/to-metadata':
      response.writeHead(307, { location: 'http://metadata.test/latest/meta-data/' });
      return response.end();
    case '/to-file':
      response.writeHead(302, { location: 'file:///etc/passwd' });
      return response.end();
    case '/changing':
      version += 1;
      return send('text/plain', `Version ${version} of the changelog: kumquat${version}`);
    case '/flaky':
      flakyCalls += 1;
      if (flakyCalls === 1) return send('text/plain', 'overloaded', 503);
      return send('text/plain', 'Flaky page finally answered with quince jam recipes');
    case '/slow': {
      const timer = setTimeout(() => send('text/plain', 'too late'), 10_000);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    case '/huge': {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 0x61);
      let sent = 0;
      const pump = () => {
        while (!response.destroyed && sent < 64 * 1024 * 1024) {
          sent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      return pump();
    }
    case '/logo.png':
      return send('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    case '/gone':
      return send('text/html', '<h1>Not here</h1>', 404);
    case '/forbidden':
      return send('text/plain', 'no', 403);
    default:
      return send('text/plain', 'no route', 500);
  }
};

let loopback = '';
const local = await startUpstream(
  t,
  routes(() => loopback),
);
loopback = local.url;
const publicLooking = await startUpstream(
  t,
  routes(() => loopback),
  '127.0.0.2',
);
const site = `http://site.test:${publicLooking.port}`;

const allowPrivate = {
  VOID_INGEST_ALLOW_PRIVATE: '1',
  INGEST_MAX_BYTES: String(256 * 1024),
  INGEST_MAX_ATTEMPTS: '2',
};
// Short enough for /slow (which never answers in time) to time out quickly.
const shortTimeout = { ...allowPrivate, INGEST_TIMEOUT_MS: '2000' };

t.test('captured HTML, text, Markdown, PDF and redirected pages become searchable documents', async (t) => {
  const ta = await testApp(t, { worker: true, env: allowPrivate });
  const space = await createSpace(ta, 'Reading');
  const cases = [
    {
      path: '/article',
      title: 'Tuning the heat pump for a quiet winter',
      type: 'text/html',
      word: 'heat pump',
    },
    { path: '/notes.txt', title: `127.0.0.1: notes.txt`, type: 'text/plain', word: 'zebra' },
    { path: '/readme.md', title: 'Garden irrigation', type: 'text/markdown', word: 'tomatoes' },
    { path: '/report.pdf', title: 'Storage Q3', type: 'application/pdf', word: 'quarterly' },
    { path: '/hop', title: 'Tuning the heat pump for a quiet winter', type: 'text/html', word: 'heat pump' },
  ];
  const captured = await Promise.all(
    cases.map((c) => captureUrl(ta, `${local.url}${c.path}`, { space_id: space.id })),
  );
  for (const [i, c] of cases.entries()) {
    const url = `${local.url}${c.path}`;
    const job = await settled(ta, captured[i].job_id);
    t.match(job, { state: 'completed', task: 'ingest.url', attempts: 1, last_error: null }, c.path);
    const docs = await docsAt(ta, url);
    t.equal(docs.length, 1, `one document for ${c.path}`);
    t.match(docs[0], { space_id: space.id, title: c.title, content_type: c.type, origin: 'url' }, c.path);
    t.equal(docs[0].metadata.capture_id, captured[i].capture_id);
    t.same(await captureState(ta, captured[i].capture_id), {
      state: 'completed',
      error: null,
      source_doc_id: docs[0].id,
    });
    const search = await ta.asOwner({
      method: 'GET',
      url: `/api/search?q=${encodeURIComponent(c.word)}&kinds=source_docs&space_id=${space.id}`,
    });
    t.equal(search.statusCode, 200);
    t.ok(
      search
        .json()
        .items.some(
          (hit: { kind: string; id: string }) => hit.kind === 'source_docs' && hit.id === docs[0].id,
        ),
      `"${c.word}" finds ${c.path}`,
    );
  }
  const [hop] = await docsAt(ta, `${local.url}/hop`);
  t.same(hop.metadata.redirects, [`${local.url}/hop`]);
  t.equal(hop.metadata.final_url, `${local.url}/article`);
  const [pdfDoc] = await docsAt(ta, `${local.url}/report.pdf`);
  t.match(pdfDoc.content, /81 percent full/);
  const [article] = await docsAt(ta, `${local.url}/article`);
  t.notMatch(article.content, /do not index this|Copyright footer/, 'only the readable article is kept');
});

t.test('one document per URL and space: capturing again refreshes it', async (t) => {
  const ta = await testApp(t, { worker: true, env: allowPrivate });
  const a = await createSpace(ta, 'A');
  const b = await createSpace(ta, 'B');
  const url = `${local.url}/changing`;
  const first = await captureUrl(ta, url, { space_id: a.id, idempotency_key: 'c1' });
  await settled(ta, first.job_id);
  const second = await captureUrl(ta, url, { space_id: a.id, idempotency_key: 'c2', title: 'My changelog' });
  await settled(ta, second.job_id);
  const other = await captureUrl(ta, url, { space_id: b.id, idempotency_key: 'c3' });
  await settled(ta, other.job_id);
  const docs = await docsAt(ta, url);
  t.equal(docs.length, 2, 'one per space');
  const inA = docs.find((doc) => doc.space_id === a.id);
  t.equal(inA?.title, 'My changelog', 'the title given at capture wins');
  t.match(inA?.content, /^Version \d+ of the changelog/);
  t.equal(inA?.metadata.capture_id, second.capture_id, 'the later capture refreshed the same document');
  const old = await ta.asOwner({ method: 'GET', url: `/api/search?q=kumquat1&space_id=${a.id}` });
  t.equal(old.json().total, 0, 'the first version is no longer what the space finds');
});

t.test('failures end with a clear last error; permanent ones are not retried', async (t) => {
  const ta = await testApp(t, { worker: true, env: shortTimeout });
  const permanent = {
    '/gone': /answered HTTP 404/,
    '/forbidden': /answered HTTP 403/,
    '/logo.png': /unsupported document: .* is image\/png/,
    '/huge': /rule: too_large/,
  };
  const transient = { '/slow': /rule: timeout/ };
  const jobs = await Promise.all(
    [...Object.keys(permanent), ...Object.keys(transient), '/flaky'].map(async (path) => ({
      path,
      captured: await captureUrl(ta, `${local.url}${path}`),
    })),
  );
  for (const { path, captured } of jobs) {
    const job = await settled(ta, captured.job_id);
    if (path in permanent) {
      t.match(job, { state: 'failed', attempts: 1 }, `${path} failed at once`);
      t.match(job.last_error, permanent[path as keyof typeof permanent], path);
      const [row] =
        await ta.sql`select attempts, max_attempts from graphile_worker.jobs where id = ${job.id}`;
      t.equal(row.attempts, row.max_attempts, `${path}: graphile-worker will not retry it`);
    } else if (path === '/slow') {
      t.match(
        job,
        { state: 'failed', attempts: 2, max_attempts: 2 },
        'a timeout is retried until max attempts',
      );
      t.match(job.last_error, transient['/slow']);
    } else {
      t.match(
        job,
        { state: 'completed', attempts: 2, last_error: null },
        'a 503 is retried and then succeeds',
      );
    }
    const state = await captureState(ta, captured.capture_id);
    if (path === '/flaky') t.equal(state.state, 'completed');
    else t.match(state, { state: 'failed', error: job.last_error, source_doc_id: null }, path);
  }
  const [{ count }] = await ta.sql`select count(*)::int from source_docs where url like ${`${local.url}%`}`;
  t.equal(count, 1, 'only the page that finally answered was stored');
});

t.test('with the address check on: public-looking targets are fetched, blocked ones refused', async (t) => {
  const ta = await testApp(t, { worker: true, env: { INGEST_MAX_ATTEMPTS: '2' } });
  const loopbackHits = () => local.requests.filter((r) => r.url === '/article').length;
  const hitsBefore = loopbackHits();
  const direct = await captureUrl(ta, `${site}/article`);
  t.equal((await settled(ta, direct.job_id)).state, 'completed');
  const hop = await captureUrl(ta, `${site}/to-other`);
  t.equal(
    (await settled(ta, hop.job_id)).state,
    'completed',
    'a redirect to another public host is followed',
  );
  const [viaOther] = await docsAt(ta, `${site}/to-other`);
  t.equal(viaOther.title, 'Garden irrigation');
  t.equal(viaOther.metadata.final_url, `http://other.test:${publicLooking.port}/readme.md`);

  const blocked: [string, RegExp][] = [
    [`${site}/to-loopback`, /127\.0\.0\.1 is in a blocked range \(loopback\).*redirected from/],
    [`${site}/to-metadata`, /169\.254\.169\.254.*blocked range \(linkLocal\)/],
    [`${site}/to-file`, /scheme file: is not allowed/],
  ];
  for (const [url, reason] of blocked) {
    const captured = await captureUrl(ta, url);
    const job = await settled(ta, captured.job_id);
    t.match(job, { state: 'failed', attempts: 1 }, `${url}: refused once, never retried`);
    t.match(job.last_error, reason, url);
    t.match(job.last_error, /rule: (blocked_address|scheme)/);
  }
  t.equal(loopbackHits(), hitsBefore, 'the loopback origin was never reached');

  const literal = await ta.asOwner({
    method: 'POST',
    url: '/api/capture',
    payload: { url: `${local.url}/article`, idempotency_key: 'literal' },
  });
  t.equal(literal.statusCode, 400, 'a blocked IP literal is refused when captured');
  t.match(literal.json().message, /loopback/);

  // A name is judged by the addresses it resolves to, at intake, exactly as the address itself would be.
  const intake: [string, RegExp][] = [
    [`http://evil.test:${publicLooking.port}/article`, /resolves to 10\.0\.0\.5.*blocked range \(private\)/],
    [`http://mixed.test:${publicLooking.port}/article`, /192\.168\.1\.10.*blocked range \(private\)/],
    [`http://loop.test:${local.port}/article`, /resolves to 127\.0\.0\.1.*blocked range \(loopback\)/],
  ];
  for (const [url, reason] of intake) {
    const res = await ta.asOwner({
      method: 'POST',
      url: '/api/capture',
      payload: { url, idempotency_key: url },
    });
    t.equal(res.statusCode, 400, `${url} is refused when captured`);
    t.equal(res.json().code, literal.json().code, 'with the same code as the address itself');
    t.match(res.json().message, reason);
  }
  t.equal(literal.json().code, 'URL_REFUSED');

  const unresolvable = await captureUrl(ta, 'http://nowhere.test/page');
  const dns = await settled(ta, unresolvable.job_id);
  t.match(
    dns.last_error,
    /DNS lookup failed for http:\/\/nowhere\.test\/page: nowhere\.test did not resolve/,
  );
  t.notMatch(dns.last_error, /refused/, 'a DNS failure is not reported as a refusal');
  t.match(dns.last_error, /rule: dns/);
});

t.test('a space deleted before its job ran fails the job for good', async (t) => {
  const ta = await testApp(t, { env: allowPrivate });
  const space = await createSpace(ta, 'Short-lived');
  const captured = await captureUrl(ta, `${local.url}/article`, { space_id: space.id });
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${space.id}` })).statusCode, 204);
  t.equal(await captureState(ta, captured.capture_id), undefined, 'its capture went with it');
  // The worker starts only now, on the same database, as after a restart.
  const deps = { sql: ta.sql, config: ta.config };
  const runner = await startWorker({
    connectionString: ta.db.url,
    taskList: buildTaskList(deps, { tasks: hub.tasks, cron: [] }),
    concurrency: 1,
    log: ta.app.log,
    cron: false,
  });
  t.teardown(() => runner.stop());
  const job = await settled(ta, captured.job_id);
  t.match(job, { state: 'failed', attempts: 1, last_error: `the space ${space.id} no longer exists` });
});

t.test('INGEST_ALLOW_PRIVATE opens exactly the listed ranges and host names', async (t) => {
  const ranged = await testApp(t, {
    worker: true,
    env: { INGEST_ALLOW_PRIVATE: '127.0.0.0/30', INGEST_MAX_ATTEMPTS: '1' },
  });
  const inRange = await captureUrl(ranged, `${local.url}/article`);
  t.equal(
    (await settled(ranged, inRange.job_id)).state,
    'completed',
    'an address in a listed range is fetched',
  );
  const viaName = await captureUrl(ranged, `http://loop.test:${local.port}/notes.txt`);
  t.equal((await settled(ranged, viaName.job_id)).state, 'completed', 'so is a name resolving into it');
  const outside = await ranged.asOwner({
    method: 'POST',
    url: '/api/capture',
    payload: { url: `http://evil.test:${local.port}/article`, idempotency_key: 'evil' },
  });
  t.equal(outside.statusCode, 400, 'every other private target stays refused');
  t.equal(outside.json().code, 'URL_REFUSED');

  const named = await testApp(t, {
    worker: true,
    env: { INGEST_ALLOW_PRIVATE: 'wiki.test', INGEST_MAX_ATTEMPTS: '1' },
  });
  const wiki = await captureUrl(named, `http://wiki.test:${local.port}/readme.md`);
  t.equal((await settled(named, wiki.job_id)).state, 'completed', 'a listed host name is fetched');
  for (const url of [`${local.url}/article`, `http://loop.test:${local.port}/article`]) {
    const res = await named.asOwner({
      method: 'POST',
      url: '/api/capture',
      payload: { url, idempotency_key: url },
    });
    t.equal(res.statusCode, 400, `${url}: the same address under another name stays refused`);
  }
});

t.test('INGEST_HEADERS_TIMEOUT_MS bounds the wait for response headers', async (t) => {
  const ta = await testApp(t, {
    worker: true,
    env: {
      ...allowPrivate,
      INGEST_MAX_ATTEMPTS: '1',
      INGEST_HEADERS_TIMEOUT_MS: '300',
      INGEST_TIMEOUT_MS: '5000',
    },
  });
  t.equal(ta.config.ingest.headersTimeoutMs, 300);
  const captured = await captureUrl(ta, `${local.url}/slow`);
  const job = await settled(ta, captured.job_id);
  t.match(job.last_error, /no response headers within 300 ms/);
});

t.test('a DNS failure is retried only a bounded number of times', async (t) => {
  const dns = new FetchRefusedError(
    'dns',
    'http://nowhere.test/',
    'nowhere.test did not resolve (ENOTFOUND)',
  );
  t.notOk(
    fetchFailure(dns, 'fetch failed', 1) instanceof PermanentJobError,
    'the first attempts are retried',
  );
  t.notOk(fetchFailure(dns, 'fetch failed', dnsMaxAttempts - 1) instanceof PermanentJobError);
  t.ok(
    fetchFailure(dns, 'fetch failed', dnsMaxAttempts) instanceof PermanentJobError,
    'then it fails for good',
  );
  const timeout = new FetchRefusedError('timeout', 'http://x.test/', 'slow');
  t.notOk(
    fetchFailure(timeout, 'fetch failed', dnsMaxAttempts) instanceof PermanentJobError,
    'timeouts are not',
  );
  t.match(dns.message, /^DNS lookup failed for http:\/\/nowhere\.test\//);
});

t.test('deleting the job of a queued capture cancels the capture', async (t) => {
  const ta = await testApp(t, { env: allowPrivate });
  const captured = await captureUrl(ta, `${local.url}/article`);
  t.equal((await captureState(ta, captured.capture_id)).state, 'queued');
  const deleted = await ta.asOwner({ method: 'DELETE', url: `/api/jobs/${captured.job_id}` });
  t.equal(deleted.statusCode, 204);
  t.match(await captureState(ta, captured.capture_id), { state: 'cancelled', error: /job was deleted/ });
});

t.test('long documents are searchable to their end; DOCUMENT_MAX_CHARS cuts and says so', async (t) => {
  const ta = await testApp(t, { env: { DOCUMENT_MAX_CHARS: '400000' } });
  const space = await createSpace(ta, 'Long');
  const text = `${'ordinary words fill this long document '.repeat(9000)}\nthe final word is zanzibarite\n`;
  t.ok(text.length > 300_000);
  const stored = await ta.sql<{ id: string }[]>`
    insert into source_docs (space_id, title, content, origin) values (${space.id}, 'Long', ${text}, 'upload')
    returning id`;
  const search = await ta.asOwner({ method: 'GET', url: `/api/search?q=zanzibarite&space_id=${space.id}` });
  t.ok(
    search.json().items.some((hit: { id: string }) => hit.id === stored[0].id),
    'a word past the first 200,000 characters is found',
  );
  t.equal(ta.config.capture.documentMaxChars, 400_000);
  const cut = capContent(
    { title: null, content: 'x'.repeat(50), content_type: 'text/plain', metadata: {} },
    20,
  );
  t.same(cut.metadata, { truncated: true, original_chars: 50, kept_chars: 20 });
  t.equal(cut.content.length, 20);
});

t.test('capture settings are checked at start', async (t) => {
  for (const value of [
    '169.254.169.254',
    '169.254.0.0/16',
    '0.0.0.0/0',
    'fd00:ec2::/64',
    '::/0',
    'metadata.google.internal',
  ]) {
    t.throws(
      () => loadConfig({ INGEST_ALLOW_PRIVATE: value }),
      { name: 'ConfigError', message: /^INGEST_ALLOW_PRIVATE .*metadata/ },
      `${value}: cloud metadata can never be allowed`,
    );
  }
  t.throws(() => loadConfig({ INGEST_ALLOW_PRIVATE: '10.0.0.0/99' }), {
    name: 'ConfigError',
    message: /^INGEST_ALLOW_PRIVATE/,
  });
  t.throws(() => loadConfig({ INGEST_ALLOW_PRIVATE: 'not a host' }), {
    name: 'ConfigError',
    message: /^INGEST_ALLOW_PRIVATE/,
  });
  const allowed = loadConfig({
    INGEST_ALLOW_PRIVATE: '192.168.1.0/24, wiki.lan, 10.1.2.3',
  }).ingest.allowPrivate;
  t.same([...(allowed?.hosts ?? [])], ['wiki.lan']);
  t.equal(allowed?.ranges.length, 2);
  t.throws(() => loadConfig({ INGEST_HEADERS_TIMEOUT_MS: '20000', INGEST_TIMEOUT_MS: '10000' }), {
    name: 'ConfigError',
    message: /^INGEST_HEADERS_TIMEOUT_MS must not exceed INGEST_TIMEOUT_MS/,
  });
  t.equal(loadConfig({}).ingest.headersTimeoutMs, 10_000);
  t.equal(loadConfig({ INGEST_TIMEOUT_MS: '5000' }).ingest.headersTimeoutMs, 5000);
});
