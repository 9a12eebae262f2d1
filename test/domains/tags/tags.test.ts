// Tags on pages, references, captured documents and apps: trimmed and unique regardless of case, refused with
// TAGS_INVALID past 32 tags or 64 characters; lists filter by ?tag= (any case); GET /api/tags counts them (an agent
// within its space); search results carry the tags of their hits; tags from a bookmark service are made to fit.
import t from 'tap';
import { fittedTags, normaliseTags } from '../../../lib/tags.ts';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';

const ta = await testApp(t);
const home = await createSpace(ta, 'Home');
const work = await createSpace(ta, 'Work');

async function create(url: string, payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode !== 201) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

const page = await create('/api/pages', {
  space_id: home.id,
  title: 'Greenhouse',
  body: 'tomatoes',
  tags: [' Garden ', 'garden', 'Plans'],
});
const ref = await create('/api/refs', {
  space_id: home.id,
  source: 'web',
  external_id: 'seeds',
  title: 'Seed shop tomatoes',
  tags: ['GARDEN', 'shops'],
});
const doc = await create('/api/source-docs', {
  space_id: work.id,
  title: 'Tomato report',
  content: 'tomatoes',
  metadata: { author: 'me' },
  tags: ['garden', 'reports'],
});
const app = await create('/api/apps', {
  name: 'Irrigation',
  href: 'https://water.example',
  tags: ['Garden'],
});

t.test(
  'tags are trimmed and unique regardless of case, the first spelling kept, on every kind',
  async (t) => {
    t.same(page.tags, ['Garden', 'Plans']);
    t.same(ref.tags, ['GARDEN', 'shops']);
    t.same(doc.tags, ['garden', 'reports']);
    t.same(
      doc.metadata,
      { author: 'me', tags: ['garden', 'reports'] },
      "a document's tags are its metadata's",
    );
    t.same(app.tags, ['Garden']);

    const edited = await ta.asOwner({
      method: 'PATCH',
      url: `/api/pages/${page.id}`,
      payload: { tags: ['Plans'] },
    });
    t.same(edited.json().tags, ['Plans']);
    const docEdited = await ta.asOwner({
      method: 'PATCH',
      url: `/api/source-docs/${doc.id}`,
      payload: { metadata: { author: 'you' } },
    });
    t.same(docEdited.json().tags, ['garden', 'reports'], 'new metadata keeps the tags');
    t.same(docEdited.json().metadata.author, 'you');
    const upserted = await ta.asOwner({
      method: 'POST',
      url: '/api/refs/upsert',
      payload: { space_id: home.id, source: 'web', external_id: 'seeds', title: 'Renamed' },
    });
    t.same(upserted.json().tags, ['GARDEN', 'shops'], 'an upsert without tags keeps them');
    await ta.asOwner({
      method: 'PATCH',
      url: `/api/pages/${page.id}`,
      payload: { tags: ['Garden', 'Plans'] },
    });
  },
);

t.test('tags breaking a rule are refused with TAGS_INVALID and a message naming the rule', async (t) => {
  const cases: [unknown[], RegExp][] = [
    [['ok', '  '], /tag 2 is empty/],
    [['x'.repeat(65)], /at most 64 characters/],
    [Array.from({ length: 33 }, (_, i) => `tag${i}`), /at most 32 tags \(33 given\)/],
  ];
  for (const [tags, message] of cases) {
    for (const [method, url, extra] of [
      ['PATCH', `/api/pages/${page.id}`, {}],
      ['PATCH', `/api/refs/${ref.id}`, {}],
      ['PATCH', `/api/source-docs/${doc.id}`, {}],
      ['PATCH', `/api/apps/${app.id}`, {}],
      ['POST', '/api/pages', { space_id: home.id, title: 'Refused' }],
    ] as const) {
      const response = await ta.asOwner({ method, url, payload: { ...extra, tags } });
      t.equal(response.statusCode, 400, `${method} ${url}`);
      t.equal(response.json().code, 'TAGS_INVALID');
      t.match(response.json().message, message);
    }
  }
  t.same(
    normaliseTags(Array.from({ length: 40 }, (_, i) => `Tag${i % 32}`)).length,
    32,
    'duplicates do not count',
  );
  const [count] = await ta.sql`select count(*)::int as n from pages where title = 'Refused'`;
  t.equal(count.n, 0);
});

t.test('lists filter by ?tag=, whatever its case', async (t) => {
  const ids = async (url: string) =>
    (await ta.asOwner({ method: 'GET', url })).json().items.map((item: { id: string }) => item.id);
  t.same(await ids('/api/pages?tag=GARDEN'), [page.id]);
  t.same(await ids('/api/pages?tag=shops'), []);
  t.same(await ids('/api/refs?tag=garden'), [ref.id]);
  t.same(await ids('/api/source-docs?tag=Reports'), [doc.id]);
  t.same(await ids('/api/apps?tag=garden'), [app.id]);
  t.same(await ids('/api/apps?tag=plans'), []);
});

t.test('GET /api/tags counts the tags in use; an agent counts within its space', async (t) => {
  const all = await ta.asOwner({ method: 'GET', url: '/api/tags' });
  t.equal(all.statusCode, 200);
  t.same(all.json().items, [
    { tag: 'Garden', count: 4 },
    { tag: 'Plans', count: 1 },
    { tag: 'reports', count: 1 },
    { tag: 'shops', count: 1 },
  ]);
  t.equal(all.json().total, 4);
  const second = await ta.asOwner({ method: 'GET', url: '/api/tags?limit=2&offset=2' });
  t.same(second.json(), {
    items: [
      { tag: 'reports', count: 1 },
      { tag: 'shops', count: 1 },
    ],
    total: 4,
    limit: 2,
    offset: 2,
  });
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/tags?offset=10' })).json().total, 4);
  const scoped = await createAgent(ta, { tier: 'read', space_id: work.id });
  const inWork = await ta.asAgent(scoped.token, { method: 'GET', url: '/api/tags' });
  t.same(inWork.json().items, [
    { tag: 'garden', count: 1 },
    { tag: 'reports', count: 1 },
  ]);
  t.equal(
    (await ta.asAgent(scoped.token, { method: 'GET', url: `/api/tags?space_id=${home.id}` })).statusCode,
    404,
    'another space is as missing',
  );
  t.equal((await ta.anon({ method: 'GET', url: '/api/tags' })).statusCode, 401);
});

t.test('search results carry the tags of their hits', async (t) => {
  const found = await ta.asOwner({ method: 'GET', url: '/api/search?q=tomatoes' });
  t.equal(found.statusCode, 200);
  // The page and the document match; the reference, renamed above, no longer does.
  t.same(found.json().facets.tags, [
    { tag: 'Garden', count: 2 },
    { tag: 'Plans', count: 1 },
    { tag: 'reports', count: 1 },
  ]);
});

t.test('the tags facet counts each listed hit once, feed items included', async (t) => {
  // A document's metadata may spell one tag thrice; a feed item is a hit with tags of its own.
  await create('/api/source-docs', {
    space_id: home.id,
    title: 'Zucchini notes',
    content: 'zucchini',
    metadata: { tags: ['Squash', 'squash', 'SQUASH', 'Harvest'] },
  });
  const [feed] = await ta.sql<{ id: string }[]>`
    insert into feeds (url, space_id) values ('https://feeds.example/garden.xml', ${home.id}) returning id`;
  await ta.sql`
    insert into feed_items (feed_id, space_id, guid, title, tags)
    values (${feed.id}, ${home.id}, 'z1', 'Zucchini glut', ${['Squash']})`;
  const found = await ta.asOwner({ method: 'GET', url: '/api/search?q=zucchini' });
  t.equal(found.json().total, 2);
  t.same(found.json().facets.tags, [
    { tag: 'Squash', count: 2 },
    { tag: 'Harvest', count: 1 },
  ]);
  const onePage = await ta.asOwner({ method: 'GET', url: '/api/search?q=zucchini&kinds=feed_items' });
  t.same(onePage.json().facets.tags, [{ tag: 'Squash', count: 1 }], 'only the hits listed');
});

t.test("a bookmark service's tags are made to fit, never refused", async (t) => {
  t.same(fittedTags([' read later ', 'Read Later', '', 42, 'x'.repeat(80)]), ['read later', 'x'.repeat(64)]);
  t.equal(fittedTags(Array.from({ length: 50 }, (_, i) => `t${i}`)).length, 32);
});
