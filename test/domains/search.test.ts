import t from 'tap';
import { insertConversation, insertMessage } from '../../domains/assistant/store.ts';
import { insertSourceDoc } from '../../domains/source-docs/store.ts';
import { createAgent, createSpace, type TestApp, testApp } from '../helpers/app.ts';

interface Hit {
  kind: string;
  id: string;
  title: string;
  snippet: string;
  rank: number;
  space_id?: string;
}

async function make(ta: TestApp, url: string, payload: Record<string, unknown>): Promise<string> {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode !== 201) throw new Error(`POST ${url} failed: ${response.body}`);
  return response.json().id;
}

async function search(ta: TestApp, query: string) {
  const response = await ta.asOwner({ method: 'GET', url: `/api/search?${query}` });
  if (response.statusCode !== 200) throw new Error(`search ${query} failed: ${response.body}`);
  return response.json() as { items: Hit[]; total: number; limit: number; offset: number };
}

/** Two spaces with one of each kind mentioning "kubernetes", plus a global conversation. */
async function seed(ta: TestApp) {
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const ids = {
    titlePage: await make(ta, '/api/pages', {
      space_id: home.id,
      title: 'Kubernetes notes',
      body: 'cluster setup',
    }),
    bodyPage: await make(ta, '/api/pages', {
      space_id: home.id,
      title: 'Weekend',
      body: 'Went running in the park, then read about kubernetes.',
    }),
    ref: await make(ta, '/api/refs', {
      space_id: work.id,
      source: 'web',
      external_id: 'k8s',
      title: 'Kubernetes documentation',
      url: 'https://kubernetes.io/docs/',
    }),
    doc: (
      await insertSourceDoc(ta.sql, {
        space_id: work.id,
        url: 'https://example.com/post',
        title: 'Container platforms compared',
        content: 'Nomad and Docker Swarm are simpler; kubernetes is the heavy option.',
        content_type: 'text/html',
        origin: 'url',
      })
    ).id,
    dockerDoc: (
      await insertSourceDoc(ta.sql, {
        space_id: work.id,
        url: null,
        title: 'Docker tips',
        content: 'Docker compose files for the home lab.',
        content_type: 'text/plain',
        origin: 'upload',
      })
    ).id,
  };
  const homeChat = await insertConversation(ta.sql, { space_id: home.id, title: 'Home chat' });
  const globalChat = await insertConversation(ta.sql, { space_id: null, title: 'Global chat' });
  const homeMessage = await insertMessage(ta.sql, {
    conversation_id: homeChat.id,
    role: 'user',
    content: 'Should the home lab run kubernetes?',
  });
  const globalMessage = await insertMessage(ta.sql, {
    conversation_id: globalChat.id,
    role: 'assistant',
    content: 'A single-node kubernetes is fine for learning.',
  });
  return { home, work, ids: { ...ids, homeMessage: homeMessage.id, globalMessage: globalMessage.id } };
}

t.test('one ranked search across every kind; title hits outrank body hits', async (t) => {
  const ta = await testApp(t);
  const { home, ids } = await seed(ta);
  const result = await search(ta, 'q=kubernetes');
  t.equal(result.total, 6);
  t.same(new Set(result.items.map((hit) => hit.kind)), new Set(['pages', 'refs', 'source_docs', 'messages']));
  const ranks = result.items.map((hit) => hit.rank);
  t.same(
    ranks,
    [...ranks].sort((a, b) => b - a),
    'ordered by rank',
  );
  const position = (id: string) => result.items.findIndex((hit) => hit.id === id);
  for (const titled of [ids.titlePage, ids.ref]) {
    for (const bodied of [ids.bodyPage, ids.doc, ids.homeMessage, ids.globalMessage]) {
      t.ok(position(titled) < position(bodied), 'a title hit ranks above a body hit');
    }
  }
  const titlePage = result.items[position(ids.titlePage)];
  t.same(titlePage, { ...titlePage, kind: 'pages', title: 'Kubernetes notes', space_id: home.id });
  t.match(result.items[position(ids.bodyPage)].snippet, /read about <mark>kubernetes<\/mark>/);
  t.match(result.items[position(ids.doc)].snippet, /<mark>kubernetes<\/mark> is the heavy option/);
  const globalHit = result.items[position(ids.globalMessage)];
  t.equal(globalHit.title, 'Global chat', 'a message hit is titled by its conversation');
  t.notOk('space_id' in globalHit, 'a global message has no space');
  t.equal(result.items[position(ids.homeMessage)].space_id, home.id);
});

t.test('kinds and space_id filter; messages drop out with space_id', async (t) => {
  const ta = await testApp(t);
  const { home, work, ids } = await seed(ta);
  const refsOnly = await search(ta, 'q=kubernetes&kinds=refs');
  t.same(
    refsOnly.items.map((hit) => hit.id),
    [ids.ref],
  );
  const two = await search(ta, 'q=kubernetes&kinds=pages,messages');
  t.same(new Set(two.items.map((hit) => hit.kind)), new Set(['pages', 'messages']));
  t.equal(two.total, 4);
  const repeated = await search(ta, 'q=kubernetes&kinds=source_docs&kinds=refs');
  t.same(new Set(repeated.items.map((hit) => hit.kind)), new Set(['source_docs', 'refs']));
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/search?q=x&kinds=spaces' })).statusCode, 400);
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/search?q=x&kinds=' })).statusCode, 400);

  const inHome = await search(ta, `q=kubernetes&space_id=${home.id}`);
  t.same(
    new Set(inHome.items.map((hit) => hit.id)),
    new Set([ids.titlePage, ids.bodyPage]),
    'only the space, and no messages even from its conversations',
  );
  const inWork = await search(ta, `q=kubernetes&space_id=${work.id}&kinds=messages`);
  t.same(inWork, { items: [], total: 0, limit: 50, offset: 0 });
});

t.test('stemming, web-search syntax and pagination', async (t) => {
  const ta = await testApp(t);
  const { ids } = await seed(ta);
  const stemmed = await search(ta, 'q=run&kinds=pages,messages');
  t.same(
    new Set(stemmed.items.map((hit) => hit.id)),
    new Set([ids.bodyPage, ids.homeMessage]),
    '"run" finds "running" and "run"',
  );
  const running = await search(ta, 'q=running&kinds=messages');
  t.same(
    running.items.map((hit) => hit.id),
    [ids.homeMessage],
    '"running" finds "run"',
  );
  const negated = await search(ta, `q=${encodeURIComponent('kubernetes -docker')}&kinds=source_docs`);
  t.same(negated.items, [], 'the only kubernetes document also mentions docker');
  const either = await search(ta, `q=${encodeURIComponent('nomad or compose')}&kinds=source_docs`);
  t.same(new Set(either.items.map((hit) => hit.id)), new Set([ids.doc, ids.dockerDoc]));
  const phrase = await search(ta, `q=${encodeURIComponent('"heavy option"')}`);
  t.same(
    phrase.items.map((hit) => hit.id),
    [ids.doc],
  );

  const first = await search(ta, 'q=kubernetes&limit=2');
  const second = await search(ta, 'q=kubernetes&limit=2&offset=2');
  t.equal(first.items.length, 2);
  t.equal(second.items.length, 2);
  t.same(
    { total: second.total, limit: second.limit, offset: second.offset },
    { total: 6, limit: 2, offset: 2 },
  );
  t.equal(new Set([...first.items, ...second.items].map((hit) => hit.id)).size, 4, 'pages do not overlap');
  const beyond = await search(ta, 'q=kubernetes&offset=50');
  t.same(beyond, { items: [], total: 6, limit: 50, offset: 50 }, 'past the end: no items, the true total');
});

t.test('any query text is valid; only an empty q or a bad limit is refused', async (t) => {
  const ta = await testApp(t);
  await seed(ta);
  const hostile = [
    '"unbalanced',
    '"',
    '-',
    '--',
    'or',
    'OR',
    'kubernetes or',
    'or kubernetes',
    '-kubernetes',
    '((kubernetes',
    'kubernetes)',
    '!!!',
    '&|!<>:*',
    "'; drop table pages; --",
    'the',
    '\\',
    'k8s:* & !',
    '<script>alert(1)</script>',
    'Ünïcödé ☃ 日本語',
    '"" ""',
    '%',
    'a'.repeat(1000),
  ];
  for (const q of hostile) {
    const response = await ta.asOwner({ method: 'GET', url: `/api/search?q=${encodeURIComponent(q)}` });
    t.equal(response.statusCode, 200, `q=${JSON.stringify(q.slice(0, 40))} answers 200`);
  }
  const stopword = await search(ta, 'q=the');
  t.same(
    stopword,
    { items: [], total: 0, limit: 50, offset: 0 },
    'a query that reduces to nothing finds nothing',
  );
  const [pages] = await ta.sql`select count(*)::int as n from pages`;
  t.equal(pages.n, 2, 'and nothing was dropped');

  for (const query of [
    '',
    'q=',
    'q=%20%20%20',
    'q=%09%0A',
    'q=x&limit=101',
    'q=x&limit=0',
    'q=x&offset=-1',
  ]) {
    const response = await ta.asOwner({ method: 'GET', url: `/api/search?${query}` });
    t.equal(response.statusCode, 400, `"${query}" is a 400`);
  }
  t.equal(
    (await ta.asOwner({ method: 'GET', url: `/api/search?q=${'a'.repeat(1001)}` })).statusCode,
    400,
    'a query over 1000 characters is refused',
  );
  t.equal((await ta.anon({ method: 'GET', url: '/api/search?q=x' })).statusCode, 401);
});

t.test('snippets mark matches and escape everything else', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  await make(ta, '/api/pages', {
    space_id: space.id,
    title: 'Escaping',
    body: 'Before <script>alert("x")</script> the zebra & the <b>lion</b> after',
  });
  const result = await search(ta, 'q=zebra');
  t.equal(result.items.length, 1);
  const snippet = result.items[0].snippet;
  t.match(snippet, /<mark>zebra<\/mark>/);
  t.notMatch(snippet.replaceAll('<mark>', '').replaceAll('</mark>', ''), /[<>]/, 'no markup but ours');
  t.match(snippet, /&lt;|&amp;/);
  const titleOnly = await search(ta, 'q=escaping');
  t.equal(titleOnly.items[0].title, 'Escaping');
  t.type(titleOnly.items[0].snippet, 'string');
});

t.test('agents search only their scope', async (t) => {
  const ta = await testApp(t);
  const { home, work, ids } = await seed(ta);
  const scoped = await createAgent(ta, { tier: 'read', space_id: home.id });
  const unscoped = await createAgent(ta, { tier: 'suggest' });

  const mine = await ta.asAgent(scoped.token, { method: 'GET', url: '/api/search?q=kubernetes' });
  t.equal(mine.statusCode, 200);
  t.same(
    new Set(mine.json().items.map((hit: Hit) => hit.id)),
    new Set([ids.titlePage, ids.bodyPage, ids.homeMessage]),
    "its space's pages and its space's messages; no global messages",
  );
  const explicit = await ta.asAgent(scoped.token, {
    method: 'GET',
    url: `/api/search?q=kubernetes&space_id=${home.id}`,
  });
  t.same(new Set(explicit.json().items.map((hit: Hit) => hit.id)), new Set([ids.titlePage, ids.bodyPage]));
  const other = await ta.asAgent(scoped.token, {
    method: 'GET',
    url: `/api/search?q=kubernetes&space_id=${work.id}`,
  });
  t.equal(other.statusCode, 404);
  const everything = await ta.asAgent(unscoped.token, { method: 'GET', url: '/api/search?q=kubernetes' });
  t.equal(everything.json().total, 6, 'an unscoped agent sees every space and the global conversations');
});
