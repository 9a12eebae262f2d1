import postgres from 'postgres';
import t from 'tap';
import { insertConversation, insertMessage } from '../../domains/assistant/store.ts';
import { parseQuery } from '../../domains/search/query.ts';
import { matchQueries, readsEveryMatch, searchAll } from '../../domains/search/store.ts';
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
  t.same(inWork, {
    items: [],
    total: 0,
    total_is_estimate: false,
    facets: { tags: [] },
    suggestions: [],
    limit: 50,
    offset: 0,
  });
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
  t.same(
    { ...beyond, facets: undefined },
    {
      items: [],
      total: 6,
      total_is_estimate: false,
      facets: undefined,
      suggestions: [],
      limit: 50,
      offset: 50,
    },
    'past the end: no items, the true total',
  );
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
    { items: stopword.items, total: stopword.total },
    { items: [], total: 0 },
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
    new Set([ids.titlePage, ids.bodyPage]),
    "its space's pages; no messages (those are the owner's)",
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
  t.equal(everything.json().total, 4, "an unscoped agent sees every space, and none of the owner's messages");
});

interface Result {
  items: (Hit & { parent_id?: string | null; project_id?: string; url?: string | null })[];
  total: number;
  total_is_estimate: boolean;
  facets: Record<string, unknown>;
  suggestions: string[];
}

/** One of each kind in two spaces, for coverage, kinds, facets and scope. */
async function seedKinds(ta: TestApp) {
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const project = await make(ta, '/api/projects', {
    space_id: home.id,
    name: 'Greenhouse automation',
    status: 'paused',
    research_notes: 'Compare humidity sensors over Zigbee.',
  });
  const task = await make(ta, '/api/tasks', {
    project_id: project,
    title: 'Order the humidity sensor',
    notes: 'Pick one with a Zigbee radio.',
  });
  const resource = await make(ta, '/api/resources', {
    space_id: work.id,
    name: 'Proxmox host',
    kind: 'hypervisor',
    notes: 'Runs the Zigbee bridge container.',
    monitoring: { url: 'http://blobword.example/' },
    metadata: { secretish: 'blobword' },
  });
  const parent = await make(ta, '/api/pages', { space_id: home.id, title: 'Garden', body: '' });
  const page = await make(ta, '/api/pages', {
    space_id: home.id,
    parent_id: parent,
    title: 'Zigbee pairing',
    body: 'Hold the button for five seconds.',
  });
  const ref = await make(ta, '/api/refs', {
    space_id: work.id,
    source: 'github',
    external_id: 'openzfs/zfs',
    title: 'OpenZFS',
    url: 'https://github.com/openzfs/zfs',
  });
  const doc = (
    await insertSourceDoc(ta.sql, {
      space_id: work.id,
      url: 'https://example.com/zigbee-guide',
      title: 'A guide',
      content: 'Coordinators, routers and end devices on Zigbee.',
      content_type: 'text/html',
      origin: 'webhook',
      metadata: { tags: ['homelab', 'wireless'] },
    })
  ).id;
  const chat = await insertConversation(ta.sql, { space_id: home.id, title: 'Home chat' });
  const message = (
    await insertMessage(ta.sql, {
      conversation_id: chat.id,
      role: 'user',
      content: 'Is Zigbee better than wifi?',
    })
  ).id;
  return { home, work, ids: { project, task, resource, parent, page, ref, doc, message } };
}

async function find(ta: TestApp, query: string): Promise<Result> {
  return (await search(ta, query)) as unknown as Result;
}

const idsOf = (result: Result) => new Set(result.items.map((hit) => hit.id));

t.test('every kind is searched, with what a result list needs to link a hit, and facets', async (t) => {
  const ta = await testApp(t);
  const { home, work, ids } = await seedKinds(ta);
  const all = await find(ta, 'q=zigbee');
  t.same(
    idsOf(all),
    new Set([ids.project, ids.task, ids.resource, ids.page, ids.doc, ids.message]),
    'research notes, task notes, resource notes, pages, documents and messages',
  );
  t.same(all.facets, {
    pages: 1,
    projects: 1,
    tasks: 1,
    resources: 1,
    refs: 0,
    source_docs: 1,
    messages: 1,
    apps: 0,
    feed_items: 0,
    tags: [
      { tag: 'homelab', count: 1 },
      { tag: 'wireless', count: 1 },
    ],
  });
  t.equal(all.total, 6);
  t.equal(all.total_is_estimate, false);
  const hit = (id: string) => all.items.find((item) => item.id === id);
  t.match(hit(ids.project), { kind: 'projects', title: 'Greenhouse automation', space_id: home.id });
  t.match(hit(ids.project)?.snippet, /<mark>Zigbee<\/mark>/);
  t.match(hit(ids.task), { kind: 'tasks', title: 'Order the humidity sensor', project_id: ids.project });
  t.match(hit(ids.resource), { kind: 'resources', title: 'Proxmox host', space_id: work.id });
  t.match(hit(ids.page), { kind: 'pages', parent_id: ids.parent });
  t.match(hit(ids.doc), { kind: 'source_docs', url: 'https://example.com/zigbee-guide' });
  t.notOk('url' in (hit(ids.page) ?? {}), 'link fields only where they belong');

  t.same(idsOf(await find(ta, 'q=paused')), new Set([ids.project]), "a project's status");
  t.same(idsOf(await find(ta, 'q=hypervisor')), new Set([ids.resource]), "a resource's kind");
  t.same((await find(ta, 'q=blobword')).items, [], 'never the monitoring or metadata blobs');
  t.same(idsOf(await find(ta, 'q=github')), new Set([ids.ref]), "a ref's source");
  t.same(
    idsOf(await find(ta, `q=${encodeURIComponent('openzfs/zfs')}`)),
    new Set([ids.ref]),
    'its external id',
  );
  t.equal((await find(ta, 'q=github')).items[0].url, 'https://github.com/openzfs/zfs');
  t.same(idsOf(await find(ta, 'q=homelab')), new Set([ids.doc]), "a document's tags");
  t.same(idsOf(await find(ta, 'q=wireless&kinds=source_doc')), new Set([ids.doc]));

  // A renamed task is found by its new title (the vector follows the row).
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/tasks/${ids.task}`,
    payload: { title: 'Solder the antenna' },
  });
  t.same(idsOf(await find(ta, 'q=antenna')), new Set([ids.task]));
});

t.test(
  'heading words follow the rows: insert, update, move and delete, for every kind with a heading',
  async (t) => {
    const ta = await testApp(t);
    const { home, work, ids } = await seedKinds(ta);
    const headings = async (id: string) =>
      (
        await ta.sql<{ kind: string; space_id: string; lexeme: string; rank: number; exact: number }[]>`
        select h.kind, h.space_id, h.lexeme, h.rank,
          ts_rank(coalesce(p.search, g.search, k.search, r.search, f.search, d.search),
            quote_literal(h.lexeme)::tsquery) as exact
        from search_headings h
          left join pages p on p.id = h.id left join projects g on g.id = h.id left join tasks k on k.id = h.id
          left join resources r on r.id = h.id left join refs f on f.id = h.id left join source_docs d on d.id = h.id
        where h.id = ${id} order by h.lexeme`
      ).map((row) => {
        t.equal(row.rank, row.exact, `the stored rank is ts_rank for "${row.lexeme}" alone`);
        return `${row.kind}:${row.lexeme}`;
      });
    t.same(await headings(ids.page), ['pages:pair', 'pages:zigbe'], "a page's title");
    t.same(await headings(ids.project), ['projects:autom', 'projects:greenhous'], "a project's name");
    t.same(await headings(ids.task), ['tasks:humid', 'tasks:order', 'tasks:sensor'], "a task's title");
    t.same(await headings(ids.resource), ['resources:host', 'resources:proxmox'], "a resource's name");
    t.same(
      await headings(ids.ref),
      ['refs:github', 'refs:openzf', 'refs:openzfs/zfs'],
      "a ref's title, source and external id",
    );
    t.same(
      await headings(ids.doc),
      ['source_docs:guid', 'source_docs:homelab', 'source_docs:wireless'],
      "a document's title and tags",
    );
    t.same(await headings(ids.message), [], 'messages have no heading');

    await ta.asOwner({
      method: 'PATCH',
      url: `/api/tasks/${ids.task}`,
      payload: { title: 'Solder the antenna' },
    });
    t.same(await headings(ids.task), ['tasks:antenna', 'tasks:solder'], 'a new title replaces the old words');
    await ta.sql`update resources set space_id = ${home.id} where id = ${ids.resource}`;
    const [moved] = await ta.sql`select distinct space_id from search_headings where id = ${ids.resource}`;
    t.equal(moved.space_id, home.id, 'a row moved to another space takes its words along');
    await ta.asOwner({ method: 'DELETE', url: `/api/pages/${ids.page}` });
    t.same(await headings(ids.page), [], 'a deleted row leaves no words');
    // The API refuses a space that holds rows; removing it in the database cascades to them.
    await ta.sql`delete from spaces where id = ${work.id}`;
    const [left] = await ta.sql`select count(*)::int as n from search_headings where space_id = ${work.id}`;
    t.equal(left.n, 0, "a deleted space's rows leave no words");
  },
);

t.test('an excluded word filters without flattening the ranking', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const titled = await make(ta, '/api/pages', { space_id: space.id, title: 'Storage plan', body: 'disks' });
  const bodied = await make(ta, '/api/pages', { space_id: space.id, title: 'Notes', body: 'more storage' });
  await make(ta, '/api/pages', { space_id: space.id, title: 'Storage raid', body: 'raid storage' });
  const result = await find(ta, `q=${encodeURIComponent('storage -raid')}`);
  t.same(
    result.items.map((hit) => hit.id),
    [titled, bodied],
  );
  t.ok(result.items[1].rank > 0, 'ranked by the words searched for, not zero for lacking the excluded one');
  t.ok(result.items[0].rank > result.items[1].rank, 'a title hit still outranks a body hit');
});

t.test('snippets come from around the first match, however deep in the text', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const filler = 'Plain words about nothing in particular. '.repeat(200);
  await make(ta, '/api/pages', {
    space_id: space.id,
    title: 'Deep',
    body: `${filler}The quartzite policy lives here.`,
  });
  const deep = await find(ta, 'q=quartzite');
  t.match(
    deep.items[0].snippet,
    /<mark>quartzite<\/mark> <mark>policy<\/mark>|<mark>quartzite<\/mark> policy/,
  );
  const stemmed = await find(ta, `q=${encodeURIComponent('policy quartz')}`);
  t.match(
    stemmed.items[0].snippet,
    /<mark>policy<\/mark>/,
    'a stem ending in "i" (polici) still finds "policy"',
  );
  const url = await make(ta, '/api/refs', {
    space_id: space.id,
    source: 'web',
    external_id: 'cb-1',
    title: 'A forge',
    url: 'https://codeberg.org/forgejo/forgejo',
  });
  t.same(idsOf(await find(ta, 'q=codeberg')), new Set([url]), "the last word as a prefix finds a URL's host");
});

t.test('kinds: singular and plural names, mixed and repeated', async (t) => {
  const ta = await testApp(t);
  const { ids } = await seedKinds(ta);
  const singular = await find(ta, 'q=zigbee&kinds=project,task');
  t.same(idsOf(singular), new Set([ids.project, ids.task]));
  t.same(singular.facets, { projects: 1, tasks: 1, tags: [] }, 'facets name the searched kinds only');
  const plural = await find(ta, 'q=zigbee&kinds=projects,tasks');
  t.same(idsOf(plural), idsOf(singular));
  const mixed = await find(ta, 'q=zigbee&kinds=resource&kinds=source_docs&kinds=message');
  t.same(idsOf(mixed), new Set([ids.resource, ids.doc, ids.message]));
  t.same(idsOf(await find(ta, 'q=zigbee&kinds=page,pages')), new Set([ids.page]));
  for (const bad of ['projectz', 'pagess', 'spaces', 'page,', 'sourcedoc']) {
    const response = await ta.asOwner({ method: 'GET', url: `/api/search?q=x&kinds=${bad}` });
    t.equal(response.statusCode, 400, `kinds=${bad} is refused`);
    t.match(response.json().message, /kinds/);
  }
});

t.test('scope: space_id leaves messages out; an agent sees its space only', async (t) => {
  const ta = await testApp(t);
  const { home, work, ids } = await seedKinds(ta);
  const inHome = await find(ta, `q=zigbee&space_id=${home.id}`);
  t.same(idsOf(inHome), new Set([ids.project, ids.task, ids.page]));
  t.notOk('messages' in inHome.facets, 'messages are not searched with a space');
  t.same(idsOf(await find(ta, `q=zigbee&space_id=${work.id}`)), new Set([ids.resource, ids.doc]));

  const scoped = await createAgent(ta, { tier: 'read', space_id: work.id });
  const response = await ta.asAgent(scoped.token, { method: 'GET', url: '/api/search?q=zigbee' });
  t.same(
    idsOf(response.json()),
    new Set([ids.resource, ids.doc]),
    'no project, task or page of another space',
  );
  const forbidden = await ta.asAgent(scoped.token, {
    method: 'GET',
    url: `/api/search?q=zigbee&space_id=${home.id}`,
  });
  t.equal(forbidden.statusCode, 404, 'another space is as good as missing');
});

t.test('the last word matches as a prefix; the web-search syntax still holds', async (t) => {
  const ta = await testApp(t);
  const { ids } = await seedKinds(ta);
  const space = await createSpace(ta, 'Lab');
  const kube = await make(ta, '/api/pages', {
    space_id: space.id,
    title: 'Kubernetes at home',
    body: 'k3s on three nodes',
  });
  t.same(idsOf(await find(ta, 'q=zig&kinds=pages')), new Set([ids.page]), '"zig" finds Zigbee');
  t.same(idsOf(await find(ta, 'q=kuber')), new Set([kube]), '"kuber" finds Kubernetes');
  t.same(idsOf(await find(ta, 'q=Kubernete')), new Set([kube]), 'a prefix past the stem, as written');
  const monitoring = await make(ta, '/api/pages', {
    space_id: space.id,
    title: 'Monitoring',
    body: 'happiness',
  });
  t.same(
    idsOf(await find(ta, 'q=monitori')),
    new Set([monitoring]),
    '"monitori" finds "monitoring" (stem "monitor")',
  );
  t.same(
    idsOf(await find(ta, 'q=happin')),
    new Set([monitoring]),
    '"happin" finds "happiness" (stem "happi")',
  );
  t.same(
    idsOf(await find(ta, `q=${encodeURIComponent('"hold the butt"')}`)),
    new Set([ids.page]),
    'in a phrase',
  );
  t.same(
    idsOf(await find(ta, `q=${encodeURIComponent('"five butt"')}`)),
    new Set(),
    'a phrase stays a phrase',
  );
  t.same(
    idsOf(await find(ta, `q=${encodeURIComponent('antenna or kub')}`)),
    new Set([kube]),
    'after or, either side',
  );
  t.same(
    idsOf(await find(ta, `q=${encodeURIComponent('zigbee -hol')}&kinds=pages`)),
    new Set([ids.page]),
    'an excluded word is no prefix',
  );
  t.same(idsOf(await find(ta, `q=${encodeURIComponent('zigbee -pairing')}&kinds=pages`)), new Set());
  t.same(idsOf(await find(ta, 'q=zigbee%20pair')), new Set([ids.page]), 'earlier words stay whole words');
  t.same((await find(ta, 'q=zi%20pairing')).items, [], '"zi" is not a prefix when it is not last');
  t.same(idsOf(await find(ta, 'q=qxprefixslot')), new Set(), 'the placeholder lexeme matches nothing');
});

t.test('the word being typed matches as the indexed words it starts, when they are few', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta, 'Lab');
  const lexemes = async (start: string) =>
    (
      await ta.sql<{ lexeme: string }[]>`
        select lexeme from search_lexemes where starts_with(lexeme, ${start}) order by lexeme`
    ).map((row) => row.lexeme);
  const stone = await make(ta, '/api/pages', { space_id: space.id, title: 'Quernstones', body: 'grinding' });
  const body = await make(ta, '/api/pages', {
    space_id: space.id,
    title: 'Mills',
    body: 'A quern, then two querns, then a quernstone.',
  });
  const ref = await make(ta, '/api/refs', {
    space_id: space.id,
    source: 'web',
    external_id: 'qw-1',
    title: 'Works',
    url: "https://quernworks.example/o'neil",
  });
  t.same(
    await lexemes('quern'),
    ['quern', 'quernston', 'quernworks.example', "quernworks.example/o'neil"],
    'every lexeme written is kept, URL tokens and quotes included',
  );

  const forms = await matchQueries(ta.sql, parseQuery('mill quern'));
  t.equal(forms.query, "'mill' & ( 'quern':* )", 'the ranking keeps the prefix');
  t.equal(
    forms.match,
    "'mill' & ( 'quern' | 'quernston' | 'quernworks.example' | 'quernworks.example/o''neil' )",
    'the match names the words, quoted',
  );
  const [same] = await ta.sql<{ equal: boolean }[]>`
    select (select array_agg(id order by id) from pages where search @@ ${forms.query}::tsquery)
      is not distinct from (select array_agg(id order by id) from pages where search @@ ${forms.match}::tsquery)
      as equal`;
  t.ok(same.equal, 'both match the same rows');
  t.same(await matchQueries(ta.sql, parseQuery('"quern"')), {
    query: "( 'quern':* )",
    match: "( 'quern' | 'quernston' | 'quernworks.example' | 'quernworks.example/o''neil' )",
    completed: ['quern', 'quernston'],
  });
  const found = await find(ta, 'q=quern');
  t.same(idsOf(found), new Set([stone, body, ref]), 'the URL token with a quote matches too');
  const ranks = await ta.sql<{ id: string; rank: number }[]>`
    select id, ts_rank(search, to_tsquery('english', 'quern:*')) as rank from pages
    union all select id, ts_rank(search, to_tsquery('english', 'quern:*')) from refs`;
  for (const hit of found.items) {
    t.equal(
      hit.rank.toFixed(6),
      ranks.find((row) => row.id === hit.id)?.rank.toFixed(6),
      `${hit.title} is ranked by the prefix`,
    );
  }

  const project = await make(ta, '/api/projects', { space_id: space.id, name: 'Workshop' });
  const task = await make(ta, '/api/tasks', { project_id: project, title: 'Sweep' });
  await ta.asOwner({ method: 'PATCH', url: `/api/tasks/${task}`, payload: { title: 'Quernlike sweep' } });
  t.same(await lexemes('quernlik'), ['quernlik'], 'a renamed row adds its words');
  const chat = await insertConversation(ta.sql, { space_id: null, title: 'Chat' });
  await insertMessage(ta.sql, { conversation_id: chat.id, role: 'user', content: 'Quernchat works?' });
  await insertSourceDoc(ta.sql, {
    space_id: space.id,
    url: null,
    title: 'Querndoc',
    content: '',
    content_type: 'text/plain',
    origin: 'upload',
  });
  t.same(await lexemes('querncha'), ['quernchat'], 'messages add their words');
  t.same(await lexemes('querndo'), ['querndoc'], 'documents add their words');
  t.same(idsOf(await find(ta, 'q=quernl')), new Set([task]));

  const many = Array.from(
    { length: 40 },
    (_, i) => `zyq${String.fromCharCode(97 + (i % 26))}${i < 26 ? '' : 'x'}word`,
  );
  const crowded = await make(ta, '/api/pages', {
    space_id: space.id,
    title: 'Crowded',
    body: many.join(' '),
  });
  t.ok((await lexemes('zyq')).length > 32);
  const wide = await matchQueries(ta.sql, parseQuery('zyq'));
  t.equal(wide.match, wide.query, 'past 32 words the prefix stays a prefix');
  t.match(wide.match, /'zyq':\*/);
  t.same(idsOf(await find(ta, 'q=zyq')), new Set([crowded]));
});

t.test('no hits: suggestions from the words already written, within reach', async (t) => {
  const ta = await testApp(t);
  const { home, work } = await seedKinds(ta);
  const none = await find(ta, 'q=proxmax');
  t.same(none.items, []);
  t.same(none.suggestions, ['proxmox'], 'proxmax → proxmox, as written (not the stem)');
  t.same((await find(ta, 'q=zigbee')).suggestions, [], 'no suggestions when something matches');
  t.match(
    (await find(ta, `q=${encodeURIComponent('greenhose automaton')}`)).suggestions[0],
    'greenhouse automation',
  );
  t.same((await find(ta, 'q=qqqqzzzz')).suggestions, []);

  const homeAgent = await createAgent(ta, { tier: 'read', space_id: home.id });
  const fromHome = await ta.asAgent(homeAgent.token, { method: 'GET', url: '/api/search?q=proxmax' });
  t.same(fromHome.json().suggestions, [], 'never a word from a space the agent cannot see');
  t.same((await find(ta, `q=proxmax&space_id=${work.id}`)).suggestions, ['proxmox']);

  const [resource] = await ta.sql`select id from resources where name = 'Proxmox host'`;
  await ta.asOwner({ method: 'DELETE', url: `/api/resources/${resource.id}` });
  t.same((await find(ta, 'q=proxmax')).suggestions, [], 'a word whose rows are gone is not offered');
});

t.test('whole texts are indexed', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const body = `${'filler text here. '.repeat(15_000)} deepneedle at the end`;
  t.ok(body.length > 250_000);
  const id = await make(ta, '/api/pages', { space_id: space.id, title: 'Long', body });
  t.same(idsOf(await find(ta, 'q=deepneedle')), new Set([id]));
});

t.test('above 10,000 matches: estimated total and facets, the best candidates ranked', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  // 10,100 pages say "common"; 9,000 of them also "shared"; three have "common" in their title.
  await ta.sql`
    insert into pages (space_id, position, title, body)
    select ${space.id}, n, 'Note ' || n,
      'a common line' || case when n <= 9000 then ' and a shared one' else '' end || repeat(' filler', n % 7)
    from generate_series(1, 10100) n`;
  const titled = await Promise.all(
    ['Common ground', 'The common case', 'Common common'].map((title) =>
      make(ta, '/api/pages', { space_id: space.id, title, body: 'nothing else' }),
    ),
  );
  await ta.sql`analyze pages`;
  // Making the titled pages renumbered every page, so the index still holds each row twice (its count is 18,000)
  // until a vacuum: the planner's estimate disagrees, and the capped ranking counts the 9,000.
  const shared = await find(ta, 'q=shared&limit=5');
  t.equal(shared.total, 9000, 'up to 10,000 matches the total is exact');
  t.equal(shared.total_is_estimate, false);

  const common = await find(ta, 'q=common&limit=5');
  t.equal(common.total_is_estimate, true);
  t.ok(common.total > 10_000, `an estimate above the threshold (${common.total})`);
  t.ok(common.total < 20_000, 'and near the truth (10,103)');
  t.equal(common.facets.pages, common.total);
  t.equal(common.items.length, 5);
  t.same(new Set(common.items.slice(0, 3).map((hit) => hit.id)), new Set(titled), 'heading hits rank first');
  t.equal(common.items[0].id, titled[2], 'twice in the title ranks highest');
  const top = { query: parseQuery('common'), kinds: ['pages'] as const, limit: 3, offset: 0 };
  t.same(
    (await searchAll(ta.sql, top)).items.map((hit) => hit.id),
    (await searchAll(ta.sql, { ...top, exact: true })).items.map((hit) => hit.id),
    'one word: the candidates hold the exact top',
  );
  const inSpace = await find(ta, `q=common&limit=5&space_id=${space.id}`);
  t.same(new Set(inSpace.items.slice(0, 3).map((hit) => hit.id)), new Set(titled), 'in a space too');
  // In a space a kind whose estimate is past the threshold is broad at once: one ranking statement, where ranking
  // it in full first read 10,001 rows, overflowed and ranked again.
  const ranked: string[] = [];
  const watched = postgres(ta.db.url, {
    max: 1,
    onnotice: () => undefined,
    debug: (_connection, query) => {
      if (query.includes('hits as (')) ranked.push(query);
    },
  });
  t.teardown(() => watched.end());
  const spaced = { ...top, spaceId: space.id };
  const once = await searchAll(watched, spaced);
  t.equal(ranked.length, 1, 'one ranking statement in a space');
  t.same(once.counts, [{ kind: 'pages', count: once.counts[0].count, estimated: true }]);
  t.ok(once.counts[0].count > 10_000, 'its count an estimate past the threshold');
  t.same(
    new Set(once.items.map((hit) => hit.id)),
    new Set((await searchAll(ta.sql, { ...spaced, exact: true })).items.map((hit) => hit.id)),
    'the candidates hold the exact top',
  );
  const elsewhere = await createSpace(ta, 'Elsewhere');
  t.same((await find(ta, `q=common&space_id=${elsewhere.id}`)).items, [], 'and only that space');
  const prefixed = await find(ta, 'q=comm&limit=3');
  t.equal(prefixed.total_is_estimate, true, 'prefix queries too');
  t.same(new Set(prefixed.items.map((hit) => hit.id)), new Set(titled));

  // Past 40,000 expected matches the planner's estimate stands without counting.
  await ta.sql`
    insert into pages (space_id, position, title, body)
    select ${space.id}, n, 'More ' || n, 'another common line' from generate_series(20001, 51000) n`;
  await ta.sql`analyze pages`;
  const many = await find(ta, 'q=common&limit=5');
  t.equal(many.total_is_estimate, true);
  t.ok(
    Math.abs(many.total - 41_103) < 4_000,
    `the planner's estimate (${many.total}) is near the truth (41,103)`,
  );
  t.same(
    new Set(many.items.slice(0, 3).map((hit) => hit.id)),
    new Set(titled),
    'heading hits still rank first',
  );
});

t.test('in a space, a rare word reads its matches from the full-text index alone', async (t) => {
  const ta = await testApp(t);
  const [home, work] = [await createSpace(ta, 'Home'), await createSpace(ta, 'Work')];
  // 3,000 pages in each space; 20 of each say "zyzzogeton", every one says "ordinary".
  for (const space of [home, work]) {
    await ta.sql`
      insert into pages (space_id, position, title, body)
      select ${space.id}, n, 'Note ' || n,
        'an ordinary line' || case when n % 150 = 0 then ' about the zyzzogeton' else '' end
      from generate_series(1, 3000) n`;
  }
  await ta.sql`analyze pages`;
  const ranked: { query: string; parameters: unknown[] }[] = [];
  const watched = postgres(ta.db.url, {
    max: 1,
    onnotice: () => undefined,
    debug: (_connection, query, parameters) => {
      if (query.includes('hits as (')) ranked.push({ query, parameters: parameters as unknown[] });
    },
  });
  t.teardown(() => watched.end());
  const planOf = async (statement: { query: string; parameters: unknown[] }) =>
    (await ta.sql.unsafe(`explain ${statement.query}`, statement.parameters as never[]))
      .map((line) => line['QUERY PLAN'])
      .join('\n');

  const rare = { query: parseQuery('zyzzogeton'), kinds: ['pages'] as const, limit: 50, offset: 0 };
  const found = await searchAll(watched, { ...rare, spaceId: home.id });
  t.same(found.counts, [{ kind: 'pages', count: 20, estimated: false }], 'every match in the space, counted');
  t.ok(
    found.items.every((hit) => hit.space_id === home.id),
    'none from the other space',
  );
  // Only the space's rows are ranked, but every match is read: the space's index is not combined with the
  // full-text one (at a million rows that read every entry of the space).
  t.match(ranked[0].query, /offset 0\) p where p\.space_id =/, 'the space is checked on each match read');
  t.notMatch(await planOf(ranked[0]), /BitmapAnd|Index Cond: \(space_id/, 'not through its index');

  // A word in every row of the space: the space's index saves reads there, and PostgreSQL may use it.
  ranked.length = 0;
  const common = await searchAll(watched, { ...rare, query: parseQuery('ordinary'), spaceId: home.id });
  t.same(common.counts, [{ kind: 'pages', count: 3000, estimated: false }]);
  t.notMatch(ranked[0].query, /offset 0/, 'the space is left to the planner');
  t.same(
    common.items.map((hit) => hit.id),
    (
      await searchAll(ta.sql, { ...rare, query: parseQuery('ordinary'), spaceId: home.id, exact: true })
    ).items.map((hit) => hit.id),
  );
});

t.test('which kinds in a space read every match: few against the space, known tables only', async (t) => {
  // Figures of the million-row bench: a rare word in one space's pages and documents, a common one in its pages.
  t.ok(readsEveryMatch({ inTable: 1296, inSpace: 107, tableRows: 312_383 }), 'nebula in pages');
  t.ok(readsEveryMatch({ inTable: 3123, inSpace: 258, tableRows: 624_532 }), 'nebula in documents');
  t.notOk(readsEveryMatch({ inTable: 45_400, inSpace: 3750, tableRows: 312_383 }), 'storage in pages');
  t.ok(readsEveryMatch({ inTable: 0, inSpace: 0, tableRows: 800 }), 'a small table, not estimated');
  t.notOk(readsEveryMatch({ inTable: 0, inSpace: 0, tableRows: -1 }), 'a table never analyzed');
  // A small space: reading its index costs less than the word's matches elsewhere.
  t.notOk(readsEveryMatch({ inTable: 3123, inSpace: 5, tableRows: 624_532 }));
});
