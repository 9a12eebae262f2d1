// POST /api/ingest/:service: HMAC over the raw body before anything is parsed, the three services, the same
// idempotency as captures, and a webhook capture carried through to a searchable document.
import { isIPv4 } from 'node:net';
import t from 'tap';
import { setTestConnectGate } from '../../../lib/safe-fetch.ts';
import { createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import { sign } from './fixtures.ts';
import { docsAt, settled } from './helpers.ts';

// Whatever a job fetches, sockets only ever open to loopback.
setTestConnectGate((address) => {
  if (!isIPv4(address) || !address.startsWith('127.')) throw new Error(`test gate: refusing ${address}`);
});
t.teardown(() => setTestConnectGate(null));

const secret = 'webhook-secret-for-tests-0123456789';

function deliver(
  ta: TestApp,
  service: string,
  body: string | Buffer,
  signature: string | null = sign(secret, body),
  query = '',
) {
  return ta.anon({
    method: 'POST',
    url: `/api/ingest/${service}${query}`,
    payload: body,
    headers: {
      'content-type': 'application/json',
      ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
    },
  });
}

async function counts(ta: TestApp) {
  const [row] = await ta.sql<{ captures: number; jobs: number }[]>`
    select (select count(*)::int from captures) as captures,
           (select count(*)::int from graphile_worker.jobs) as jobs`;
  return row;
}

const karakeep = (operation: string, jobId: string, url = 'https://example.org/k') =>
  JSON.stringify({ jobId, bookmarkId: 'bm1', userId: 'u1', url, type: 'link', operation });

t.test('without WEBHOOK_SECRET the webhook refuses everything with 503', async (t) => {
  const ta = await testApp(t);
  const body = karakeep('created', 'j1');
  const res = await deliver(ta, 'karakeep', body, sign('', body));
  t.equal(res.statusCode, 503);
  t.match(res.json(), { code: 'WEBHOOK_DISABLED', message: /set WEBHOOK_SECRET/ });
  t.equal((await deliver(ta, 'karakeep', body, null)).statusCode, 503, 'unsigned is never accepted');
  t.same(await counts(ta), { captures: 0, jobs: 0 });
});

t.test('the signature is checked over the raw body, before parsing', async (t) => {
  const ta = await testApp(t, { env: { WEBHOOK_SECRET: secret } });
  const body = karakeep('created', 'j1');

  const missing = await deliver(ta, 'karakeep', body, null);
  t.equal(missing.statusCode, 401);
  t.match(missing.json().message, /missing x-hub-signature-256/);
  const wrong = await deliver(ta, 'karakeep', body, sign('not-the-secret', body));
  t.equal(wrong.statusCode, 401);
  t.match(wrong.json().message, /does not match/);
  const modified = await deliver(
    ta,
    'karakeep',
    body.replace('example.org', 'example.net'),
    sign(secret, body),
  );
  t.equal(modified.statusCode, 401, 'a body changed after signing is refused');
  const reformatted = await deliver(
    ta,
    'karakeep',
    JSON.stringify(JSON.parse(body), null, 2),
    sign(secret, body),
  );
  t.equal(reformatted.statusCode, 401, 'the same JSON with other bytes is another body');
  const malformed = await deliver(ta, 'karakeep', body, 'sha256=xyz');
  t.equal(malformed.statusCode, 401);
  const garbage = '{"url": not json';
  const unparsable = await deliver(ta, 'generic', garbage, sign(secret, garbage));
  t.equal(unparsable.statusCode, 400, 'a correctly signed body that is not JSON is a 400');
  const unsignedGarbage = await deliver(ta, 'generic', garbage, null);
  t.equal(unsignedGarbage.statusCode, 401, 'an unsigned body is refused before it is parsed');
  t.same(await counts(ta), { captures: 0, jobs: 0 });

  const right = await deliver(ta, 'karakeep', body);
  t.equal(right.statusCode, 202);
  t.match(right.json(), {
    service: 'karakeep',
    operation: 'created',
    status: 'captured',
    capture: {
      task: 'ingest.url',
      url: 'https://example.org/k',
      idempotency_key: 'karakeep:bm1:j1',
      duplicate: false,
    },
  });
  const plainText = await deliver(ta, 'karakeep', karakeep('created', 'j9'));
  t.equal(plainText.statusCode, 202);

  const unknown = await deliver(ta, 'pinboard', body);
  t.equal(unknown.statusCode, 404);
  t.match(unknown.json().message, /unknown bookmark service "pinboard" \(karakeep, generic\)/);
});

t.test('karakeep: created and edited capture, deleted is acknowledged, jobId deduplicates', async (t) => {
  const ta = await testApp(t, { env: { WEBHOOK_SECRET: secret } });
  const created = await deliver(ta, 'karakeep', karakeep('created', 'job-1'));
  t.equal(created.statusCode, 202);
  const redelivered = await deliver(ta, 'karakeep', karakeep('created', 'job-1'));
  t.equal(redelivered.statusCode, 202);
  t.equal(redelivered.json().status, 'duplicate');
  t.same(redelivered.json().capture, { ...created.json().capture, duplicate: true });
  const edited = await deliver(ta, 'karakeep', karakeep('edited', 'job-2'));
  t.equal(edited.json().status, 'captured', 'an edit captures the URL again');
  t.not(edited.json().capture.capture_id, created.json().capture.capture_id);
  const deleted = await deliver(ta, 'karakeep', karakeep('deleted', 'job-3'));
  t.equal(deleted.statusCode, 200);
  t.match(deleted.json(), {
    status: 'ignored',
    operation: 'deleted',
    capture: null,
    reason: /deletion acknowledged/,
  });
  const crawled = await deliver(ta, 'karakeep', karakeep('crawled', 'job-4'));
  t.equal(crawled.json().status, 'ignored');
  const video = await deliver(ta, 'karakeep', karakeep('created', 'job-5', 'https://youtu.be/abc'));
  t.equal(video.json().capture.task, 'ingest.video');
  const bad = await deliver(ta, 'karakeep', JSON.stringify({ operation: 'created' }));
  t.equal(bad.statusCode, 400);
  t.match(bad.json().message, /not a karakeep webhook payload/);
  const ftp = await deliver(ta, 'karakeep', karakeep('created', 'job-6', 'ftp://example.org/x'));
  t.equal(ftp.statusCode, 400);
  t.match(ftp.json().message, /scheme ftp: is not allowed/);
  t.same(await counts(ta), { captures: 3, jobs: 3 });
  const [inbox] = await ta.sql`select name from spaces where id = ${created.json().capture.space_id}`;
  t.equal(inbox.name, 'Inbox');
});

t.test('generic bookmarks; space_id picks the space; linkding is no webhook service', async (t) => {
  const ta = await testApp(t, { env: { WEBHOOK_SECRET: secret } });
  const space = await createSpace(ta, 'Bookmarks');
  const added = await deliver(
    ta,
    'generic',
    JSON.stringify({ url: 'https://example.org/ld', title: 'A page', tags: ['home'] }),
    undefined,
    `?space_id=${space.id}`,
  );
  t.equal(added.statusCode, 202);
  t.match(added.json().capture, { url: 'https://example.org/ld', title: 'A page', space_id: space.id });
  const linkding = await deliver(ta, 'linkding', JSON.stringify({ event: 'new_bookmark' }));
  t.equal(linkding.statusCode, 404, 'linkding sends no webhooks: it is pulled (LINKDING_URL)');
  t.equal(linkding.json().code, 'UNKNOWN_SERVICE');

  const generic = JSON.stringify({ url: 'https://example.org/g', title: 'Generic', tags: ['a', 'b'] });
  const first = await deliver(ta, 'generic', generic);
  t.equal(first.statusCode, 202);
  t.equal((await deliver(ta, 'generic', generic)).json().status, 'duplicate');
  const keyed = JSON.stringify({ url: 'https://example.org/g2', idempotency_key: 'mine-1' });
  t.equal((await deliver(ta, 'generic', keyed)).json().capture.idempotency_key, 'generic:mine-1');
  const [job] = await ta.sql`
    select payload from graphile_worker._private_jobs where id = ${first.json().capture.job_id}`;
  t.match(job.payload, { origin: 'webhook', tags: ['a', 'b'], title: 'Generic' });
  const strict = await deliver(ta, 'generic', JSON.stringify({ url: 'https://example.org/', extra: 1 }));
  t.equal(strict.statusCode, 400);
  const noSpace = await deliver(
    ta,
    'generic',
    generic,
    undefined,
    '?space_id=00000000-0000-4000-8000-000000000000',
  );
  t.equal(noSpace.statusCode, 404);
  const badSpace = await deliver(ta, 'generic', generic, undefined, '?space_id=nope');
  t.equal(badSpace.statusCode, 400);
});

t.test('a webhook bookmark is ingested into a searchable document of origin webhook', async (t) => {
  const origin = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end('Notes on the xylophone restoration project');
  });
  const ta = await testApp(t, {
    worker: true,
    env: { WEBHOOK_SECRET: secret, VOID_INGEST_ALLOW_PRIVATE: '1' },
  });
  const url = `${origin.url}/xylophone`;
  const body = JSON.stringify({ url, title: 'Xylophone', tags: ['music'] });
  const res = await deliver(ta, 'generic', body);
  t.equal(res.statusCode, 202);
  const job = await settled(ta, res.json().capture.job_id);
  t.equal(job.state, 'completed');
  const [doc] = await docsAt(ta, url);
  t.match(doc, { origin: 'webhook', title: 'Xylophone', metadata: { tags: ['music'] } });
  const search = await ta.asOwner({ method: 'GET', url: '/api/search?q=xylophone' });
  t.equal(search.json().items[0]?.id, doc.id);
});

t.test('a stock Karakeep delivers with its bearer token and unsigned bodies', async (t) => {
  const ta = await testApp(t, { env: { WEBHOOK_SECRET: secret } });
  // Exactly what Karakeep's webhook worker posts: JSON.stringify drops the url of text and asset bookmarks, and
  // the url and type of a deleted one (the bookmark is gone by then).
  const stock = (operation: string, jobId: string, bookmark: { url?: string; type?: string }) =>
    JSON.stringify({ jobId, bookmarkId: 'ck1', userId: 'user-1', ...bookmark, operation });
  const bearer = (token: string, body: string) =>
    ta.anon({
      method: 'POST',
      url: '/api/ingest/karakeep',
      payload: body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
  const link = { url: 'https://example.org/stock', type: 'link' };
  const created = await bearer(secret, stock('created', '41', link));
  t.equal(created.statusCode, 202, 'the shared secret as a bearer token is accepted');
  t.match(created.json(), { status: 'captured', capture: { url: 'https://example.org/stock' } });
  const again = await bearer(secret, stock('created', '41', link));
  t.equal(again.json().status, 'duplicate', 'a retried delivery is one capture');
  for (const [operation, bookmark] of [
    ['crawled', link],
    ['ai tagged', link],
    ['deleted', {}],
    ['created', { type: 'text' }],
    ['created', { type: 'asset' }],
    ['edited', { type: 'text' }],
  ] as const) {
    const res = await bearer(secret, stock(operation, `j-${operation}`, bookmark));
    t.equal(res.statusCode, 200, `${operation} ${bookmark.type ?? '(deleted)'} is acknowledged`);
    t.match(res.json(), { status: 'ignored', capture: null });
  }
  const wrong = await bearer('not-the-secret-at-all', stock('created', '42', link));
  t.equal(wrong.statusCode, 401);
  t.match(wrong.json(), { code: 'SIGNATURE_INVALID', message: /bearer token does not match/ });
  const prefix = await bearer(secret.slice(0, 10), stock('created', '43', link));
  t.equal(prefix.statusCode, 401, 'a prefix of the secret is not the secret');
  const none = await ta.anon({
    method: 'POST',
    url: '/api/ingest/karakeep',
    payload: stock('created', '44', link),
    headers: { 'content-type': 'application/json' },
  });
  t.equal(none.statusCode, 401);
  t.same(await counts(ta), { captures: 1, jobs: 1 });
});
