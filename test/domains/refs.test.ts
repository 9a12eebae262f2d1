import t from 'tap';
import { insertPendingChange } from '../../domains/pending-changes/store.ts';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';

t.test('owner manages refs', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: {
      space_id: home.id,
      source: 'github',
      external_id: 'fastify/fastify',
      url: 'https://github.com/fastify/fastify',
      title: 'Fastify',
    },
  });
  t.equal(created.statusCode, 201);
  const ref = created.json();
  t.match(ref, { source: 'github', external_id: 'fastify/fastify', title: 'Fastify', notes: '' });

  const duplicate = await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: home.id, source: 'github', external_id: 'fastify/fastify' },
  });
  t.equal(duplicate.statusCode, 409, 'an identity exists once');
  const badUrl = await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: home.id, source: 'web', external_id: 'x', url: 'not a url' },
  });
  t.equal(badUrl.statusCode, 400);
  await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: work.id, source: 'arxiv', external_id: '2401.00001' },
  });

  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/refs/${ref.id}`,
    payload: { notes: 'web framework', url: null },
  });
  t.equal(patched.statusCode, 200);
  t.match(patched.json(), { notes: 'web framework', url: null, title: 'Fastify' });

  const bySpace = await ta.asOwner({ method: 'GET', url: `/api/refs?space_id=${work.id}` });
  t.same(
    bySpace.json().items.map((r: { external_id: string }) => r.external_id),
    ['2401.00001'],
  );
  const bySource = await ta.asOwner({ method: 'GET', url: '/api/refs?source=github&limit=5&offset=0' });
  t.same(
    { ...bySource.json(), items: bySource.json().items.map((r: { id: string }) => r.id) },
    { items: [ref.id], total: 1, limit: 5, offset: 0 },
  );
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/refs/${ref.id}` })).json().notes, 'web framework');
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/refs/${ref.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/refs/${ref.id}` })).statusCode, 404);
});

t.test('upsert by external identity creates, then updates what it names', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const first = await ta.asOwner({
    method: 'POST',
    url: '/api/refs/upsert',
    payload: {
      space_id: home.id,
      source: 'bookmarks',
      external_id: '42',
      title: 'Old title',
      notes: 'keep me',
    },
  });
  t.equal(first.statusCode, 201);
  const second = await ta.asOwner({
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { space_id: home.id, source: 'bookmarks', external_id: '42', title: 'New title' },
  });
  t.equal(second.statusCode, 200);
  t.equal(second.json().id, first.json().id);
  t.match(second.json(), { title: 'New title', notes: 'keep me' }, 'fields left out keep their value');

  // Identities are unique per space: in another space the same identity is another ref.
  const elsewhere = await ta.asOwner({
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { space_id: work.id, source: 'bookmarks', external_id: '42', title: 'At work' },
  });
  t.equal(elsewhere.statusCode, 201);
  t.not(elsewhere.json().id, first.json().id);
  const rows = await ta.sql`select title, space_id from refs where external_id = '42' order by title`;
  t.same(rows, [
    { title: 'At work', space_id: work.id },
    { title: 'New title', space_id: home.id },
  ]);
  const duplicate = await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: home.id, source: 'bookmarks', external_id: '42' },
  });
  t.equal(duplicate.statusCode, 409, 'creating an identity its space has is a conflict');
  t.equal(
    duplicate.json().message,
    'a ref with source "bookmarks" and with external id "42" already exists here',
    `said in words: ${duplicate.json().message}`,
  );
});

t.test('a scoped agent learns nothing of an identity used in another space', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const secretRef = await ta.asOwner({
    method: 'POST',
    url: '/api/refs',
    payload: { space_id: work.id, source: 'jira', external_id: 'SECRET-1', title: 'Layoffs' },
  });
  const agent = await createAgent(ta, { tier: 'owner', space_id: home.id });
  for (const url of ['/api/refs', '/api/refs/upsert']) {
    const same = await ta.asAgent(agent.token, {
      method: 'POST',
      url,
      payload: { source: 'jira', external_id: url === '/api/refs' ? 'SECRET-1' : 'SECRET-2' },
    });
    t.equal(same.statusCode, 201, `${url}: its own ref, as if the identity were unused`);
    t.equal(same.json().space_id, home.id);
  }
  const upsertAgain = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { source: 'jira', external_id: 'SECRET-1', title: 'mine' },
  });
  t.equal(upsertAgain.statusCode, 200, 'its upsert finds its own ref');
  t.not(upsertAgain.json().id, secretRef.json().id);
  const [work1] = await ta.sql`select title from refs where id = ${secretRef.json().id}`;
  t.equal(work1.title, 'Layoffs', "the other space's ref is untouched");
});

t.test('concurrent upserts of one identity leave one row', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const responses = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      ta.asOwner({
        method: 'POST',
        url: '/api/refs/upsert',
        payload: { space_id: space.id, source: 'rss', external_id: 'item-1', title: `title ${i}` },
      }),
    ),
  );
  const codes = responses.map((r) => r.statusCode).sort();
  t.same(codes, [200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201], 'one create, the rest updates');
  t.equal(new Set(responses.map((r) => r.json().id)).size, 1);
  const [count] =
    await ta.sql`select count(*)::int as n from refs where source = 'rss' and external_id = 'item-1'`;
  t.equal(count.n, 1);
});

t.test('agents on refs: suggest tier is diverted, read tier refused, owner tier scoped', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const reader = await createAgent(ta, { tier: 'read', space_id: home.id });
  const scopedOwner = await createAgent(ta, { tier: 'owner', space_id: home.id });

  const suggested = await ta.asAgent(suggester.token, {
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { source: 'web', external_id: 'a' },
  });
  t.equal(suggested.statusCode, 202, 'a suggest-tier write becomes a pending change');
  t.equal(suggested.json().status, 'pending');
  t.equal(
    (
      await ta.asAgent(reader.token, {
        method: 'POST',
        url: '/api/refs',
        payload: { source: 'web', external_id: 'a' },
      })
    ).statusCode,
    403,
  );
  const upserted = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { source: 'web', external_id: 'a' },
  });
  t.equal(upserted.statusCode, 201);
  t.equal(upserted.json().space_id, home.id, 'space injected');
  const outside = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: '/api/refs/upsert',
    payload: { space_id: work.id, source: 'web', external_id: 'b' },
  });
  t.equal(outside.statusCode, 404);
  const [count] = await ta.sql`select count(*)::int as n from refs`;
  t.equal(count.n, 1);
  t.equal((await ta.asAgent(reader.token, { method: 'GET', url: '/api/refs' })).json().total, 1);
});

t.test(
  'a ref URL is a web link: other schemes are refused wherever it is written, and not stored',
  async (t) => {
    const ta = await testApp(t);
    const home = await createSpace(ta, 'Home');
    const scribe = await createAgent(ta, { tier: 'suggest' });
    const kept = await ta.asOwner({
      method: 'POST',
      url: '/api/refs',
      payload: { space_id: home.id, source: 'web', external_id: 'kept', url: 'https://example.org/kept' },
    });
    t.equal(kept.statusCode, 201);
    const hostile = [
      'javascript:alert(document.cookie)',
      'JavaScript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'mailto:owner@example.org',
    ];
    for (const url of hostile) {
      const writes = [
        {
          method: 'POST',
          url: '/api/refs',
          payload: { space_id: home.id, source: 'web', external_id: url, url },
        },
        {
          method: 'POST',
          url: '/api/refs/upsert',
          payload: { space_id: home.id, source: 'web', external_id: 'kept', url },
        },
        { method: 'PATCH', url: `/api/refs/${kept.json().id}`, payload: { url } },
      ] as const;
      for (const write of writes) {
        const response = await ta.asOwner(write);
        t.equal(response.statusCode, 400, `${write.method} ${write.url} with ${url}`);
        t.match(response.json(), { code: 'URL_REFUSED', message: /body\/url must be an http or https URL/ });
      }
      // What an agent proposed before the rule (or through any channel): refused again when the owner approves it.
      const proposal = await ta.asAgent(scribe.token, {
        method: 'POST',
        url: '/api/refs',
        payload: { space_id: home.id, source: 'web', external_id: `agent:${url}`, url },
      });
      t.equal(proposal.statusCode, 400, `a suggest agent's proposal of ${url} is refused too`);
    }
    const stored = await insertPendingChange(ta.sql, {
      agent_id: scribe.id,
      entity_type: 'ref',
      action: 'create',
      entity_id: null,
      space_id: home.id,
      payload: { space_id: home.id, source: 'web', external_id: 'old', url: 'javascript:alert(1)' },
    });
    const approved = await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${stored.id}/approve` });
    t.equal(approved.statusCode, 400);
    t.equal(approved.json().code, 'URL_REFUSED');
    t.same(
      await ta.sql`select url from refs where url is not null and url !~ '^https?://'`,
      [],
      'no ref holds a non-web URL',
    );
    t.equal(
      (await ta.sql`select url from refs where id = ${kept.json().id}`)[0].url,
      'https://example.org/kept',
    );
  },
);
