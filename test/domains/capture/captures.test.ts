// GET /api/captures: the capture inbox. Captured URLs (fetched from a loopback origin by the real worker) and
// uploaded files, newest first, with state, error and the document each produced; filters, pages, agents' reads
// (a scoped agent sees its own space only), and a failed capture queued again by retrying its job.
import t from 'tap';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { captureSite, greenhouse, greenhouseLog, released } from './site.ts';

let releaseRetry: () => void = () => undefined;
const back = new Promise<void>((resolve) => {
  releaseRetry = resolve;
});
// The log page is missing at first (a permanent failure); after the retry it answers once the test lets it.
const origin = await captureSite(t, back);
const articleUrl = `${origin.url}${greenhouse.path}`;
const logUrl = `${origin.url}${greenhouseLog.path}`;

const ta = await testApp(t, { worker: true, env: { VOID_INGEST_ALLOW_PRIVATE: '1' } });
const reading = await createSpace(ta, 'Reading');
const garden = await createSpace(ta, 'Garden');

interface Capture {
  id: string;
  origin: string;
  url: string | null;
  filename: string | null;
  title: string | null;
  state: string;
  error: string | null;
  space_id: string;
  document_id: string | null;
  job_id: string | null;
  created_at: string;
  updated_at: string;
}

async function list(
  query = '',
  as: (request: { method: 'GET'; url: string }) => ReturnType<TestApp['anon']> = ta.asOwner,
) {
  return as({ method: 'GET', url: `/api/captures${query}` });
}

/** The setup's checks (the runner ends a file's root test at its first top-level assertion). */
function expect(ok: boolean, what: string): void {
  if (!ok) throw new Error(`setup: ${what}`);
}

async function settled(jobId: string): Promise<string> {
  for (;;) {
    const job = (await ta.asOwner({ method: 'GET', url: `/api/jobs/${jobId}` })).json();
    if (job.state === 'completed' || job.state === 'failed') return job.state;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function capture(path: string, spaceId: string) {
  const response = await ta.asOwner({
    method: 'POST',
    url: '/api/capture',
    payload: { url: `${origin.url}${path}`, idempotency_key: path, space_id: spaceId },
  });
  expect(response.statusCode === 202, `capturing ${path} answered ${response.statusCode}`);
  return response.json() as { capture_id: string; job_id: string };
}

const article = await capture(greenhouse.path, reading.id);
expect((await settled(article.job_id)) === 'completed', 'the article is fetched');
const gone = await capture(greenhouseLog.path, garden.id);
expect((await settled(gone.job_id)) === 'failed', 'the missing page fails');
const form = new FormData();
form.append('space_id', reading.id);
form.append(
  'file',
  new Blob(['# Seed list\n\nBasil, chard and beans.'], { type: 'text/markdown' }),
  'seeds.md',
);
const multipart = new Request('http://hub.test/', { method: 'POST', body: form });
const uploaded = await ta.asOwner({
  method: 'POST',
  url: '/api/capture/upload',
  payload: Buffer.from(await multipart.arrayBuffer()),
  headers: { 'content-type': multipart.headers.get('content-type') ?? '' },
});
expect(uploaded.statusCode === 201, `the upload answered ${uploaded.statusCode}`);
const [articleDoc] = await ta.sql<{ id: string }[]>`select id from source_docs where url = ${articleUrl}`;

t.test('captures and uploads, newest first, each with its state, error and document', async (t) => {
  const response = await list();
  t.equal(response.statusCode, 200);
  const page = response.json() as { items: Capture[]; total: number; limit: number; offset: number };
  t.match(page, { total: 3, limit: 50, offset: 0 });
  t.same(
    page.items.map((item) => item.url ?? item.filename),
    ['seeds.md', logUrl, articleUrl],
    'newest first',
  );
  const [upload, failed, done] = page.items;
  t.match(upload, {
    id: uploaded.json().id,
    origin: 'upload',
    url: null,
    filename: 'seeds.md',
    title: 'Seed list',
    state: 'completed',
    error: null,
    space_id: reading.id,
    document_id: uploaded.json().id,
    job_id: null,
  });
  t.match(failed, {
    id: gone.capture_id,
    origin: 'url',
    filename: null,
    title: null,
    state: 'failed',
    error: /404/,
    space_id: garden.id,
    document_id: null,
    job_id: gone.job_id,
  });
  t.match(done, {
    id: article.capture_id,
    origin: 'url',
    title: greenhouse.title,
    state: 'completed',
    error: null,
    space_id: reading.id,
    document_id: articleDoc.id,
    job_id: article.job_id,
  });
  t.ok(Date.parse(done.created_at) <= Date.parse(done.updated_at), 'times are ISO 8601');
});

t.test('filters by state and space, and pages', async (t) => {
  const urls = async (query: string) =>
    ((await list(query)).json().items as Capture[]).map((item) => item.url ?? item.filename);
  t.same(await urls('?state=failed'), [logUrl]);
  t.same(await urls('?state=completed'), ['seeds.md', articleUrl]);
  t.same(await urls('?state=queued'), [], 'uploads are never queued');
  t.same(await urls(`?space_id=${reading.id}`), ['seeds.md', articleUrl]);
  t.same(await urls(`?space_id=${garden.id}&state=completed`), []);
  const second = (await list('?limit=1&offset=1')).json();
  t.match(second, { total: 3, limit: 1, offset: 1, items: [{ url: logUrl }] });
  const bad = await list('?state=lost');
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().code, 'VALIDATION_FAILED');
});

t.test('agents read it like other capture reads; a scoped agent sees its own space only', async (t) => {
  const reader = await createAgent(ta, { tier: 'read' });
  const all = await list('', (request) => ta.asAgent(reader.token, request));
  t.equal(all.statusCode, 200);
  t.equal(all.json().total, 3);
  const scoped = await createAgent(ta, { tier: 'read', space_id: reading.id });
  const own = await list('', (request) => ta.asAgent(scoped.token, request));
  t.same(
    (own.json().items as Capture[]).map((item) => item.space_id),
    [reading.id, reading.id],
  );
  const other = await list(`?space_id=${garden.id}`, (request) => ta.asAgent(scoped.token, request));
  t.equal(other.statusCode, 404);
  t.equal(other.json().code, 'SPACE_NOT_FOUND');
  t.equal((await list('', ta.anon)).statusCode, 401);
});

t.test(
  'read state: new entries are unread; marked read and unread; opening the document reads it',
  async (t) => {
    const ids = async (query: string) => {
      const page = (await list(query)).json() as { items: Capture[]; unread: number; total: number };
      return { ids: page.items.map((item) => item.id), unread: page.unread, total: page.total };
    };
    const all = [uploaded.json().id, gone.capture_id, article.capture_id];
    t.same(await ids('?unread=true'), { ids: all, unread: 3, total: 3 }, 'everything new is unread');

    const marked = await ta.asOwner({
      method: 'PATCH',
      url: `/api/captures/${gone.capture_id}`,
      payload: { read: true },
    });
    t.equal(marked.statusCode, 200);
    t.match(marked.json(), { id: gone.capture_id, state: 'failed', read_at: /^\d{4}-/ });
    const readAt = marked.json().read_at;
    const again = await ta.asOwner({
      method: 'PATCH',
      url: `/api/captures/${gone.capture_id}`,
      payload: { read: true },
    });
    t.equal(again.json().read_at, readAt, 'read again keeps the first time');
    t.same(await ids(`?unread=true&space_id=${reading.id}`), {
      ids: [uploaded.json().id, article.capture_id],
      unread: 2,
      total: 2,
    });
    t.equal((await ids('')).unread, 2, 'the count of unread beside every entry');

    // Opening the article's document (what the app does) reads its capture in the inbox.
    const opened = await ta.asOwner({
      method: 'PATCH',
      url: `/api/source-docs/${articleDoc.id}`,
      payload: { read: true },
    });
    t.equal(opened.statusCode, 200);
    t.match(opened.json(), { read_at: /^\d{4}-/ });
    const [doc] = await ta.sql<{ updated_at: Date; created_at: Date }[]>`
    select updated_at, created_at from source_docs where id = ${articleDoc.id}`;
    t.ok(doc.updated_at.getTime() < Date.parse(opened.json().read_at), 'reading is not an edit');
    t.same((await ids('?unread=true')).ids, [uploaded.json().id]);
    const docs = await ta.asOwner({ method: 'GET', url: '/api/source-docs?unread=true' });
    t.same(
      docs.json().items.map((item: { id: string }) => item.id),
      [uploaded.json().id],
      'the documents list filters unread too',
    );

    // The upload is an entry of its own: marked read through the inbox, then unread again.
    const upload = `/api/captures/${uploaded.json().id}`;
    t.match((await ta.asOwner({ method: 'PATCH', url: upload, payload: { read: true } })).json(), {
      origin: 'upload',
      read_at: /^\d{4}-/,
    });
    t.same(await ids('?unread=true'), { ids: [], unread: 0, total: 0 });
    t.match((await ta.asOwner({ method: 'PATCH', url: upload, payload: { read: false } })).json(), {
      read_at: null,
    });
    const unreadArticle = await ta.asOwner({
      method: 'PATCH',
      url: `/api/captures/${article.capture_id}`,
      payload: { read: false },
    });
    t.match(
      unreadArticle.json(),
      { document_id: articleDoc.id, read_at: null },
      'a capture and its document',
    );
    t.same((await ids('?unread=true')).ids, [uploaded.json().id, article.capture_id]);

    const missing = await ta.asOwner({
      method: 'PATCH',
      url: '/api/captures/00000000-0000-4000-8000-000000000000',
      payload: { read: true },
    });
    t.equal(missing.statusCode, 404);
    t.equal(missing.json().code, 'CAPTURE_NOT_FOUND');
    const bad = await ta.asOwner({ method: 'PATCH', url: upload, payload: { read: 'yes' } });
    t.equal(bad.statusCode, 400);
    const reader = await createAgent(ta, { tier: 'owner' });
    const agent = await ta.asAgent(reader.token, { method: 'PATCH', url: upload, payload: { read: true } });
    t.equal(agent.statusCode, 403, "the inbox's read state is the owner's");
  },
);

t.test("retrying a failed capture's job queues the capture again", async (t) => {
  await released(ta.sql, gone.job_id);
  const retry = await ta.asOwner({ method: 'POST', url: `/api/jobs/${gone.job_id}/retry` });
  t.equal(retry.statusCode, 202);
  const waiting = (await list('?state=queued')).json().items as Capture[];
  t.match(waiting, [{ id: gone.capture_id, state: 'queued', error: null }], 'queued, the old error gone');
  releaseRetry();
  t.equal(await settled(gone.job_id), 'completed');
  const [done] = (await list(`?space_id=${garden.id}`)).json().items as Capture[];
  t.match(done, { state: 'completed', error: null, document_id: /^[0-9a-f-]{36}$/ });
});
