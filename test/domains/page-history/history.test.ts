// Page history: every change of a page's title or body keeps a version naming who made it (the owner, an agent, an
// approval of an agent's proposal); a version is read with a diff to the current text and restored as a new,
// audited version; a pending page edit shows its diff; the daily purge keeps the retention and the newest ones.
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { pageHistoryPurgeTask } from '../../../domains/page-history/schema.ts';
import { hub } from '../../../modules.ts';
import { enqueue } from '../../../worker/enqueue.ts';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';
import { owned } from '../../helpers/entities.ts';

const ta = await testApp(t, { worker: true });

t.test('who changed a page, when, and how big it was', async (t) => {
  const home = await createSpace(ta);
  const direct = await createAgent(ta, { tier: 'owner', space_id: home.id });
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const page = await owned(ta, '/api/pages', { space_id: home.id, title: 'Runbook', body: 'one' });
  const url = `/api/pages/${page.id}`;

  t.equal((await ta.asOwner({ method: 'PATCH', url, payload: { body: 'one\ntwo' } })).statusCode, 200);
  t.equal(
    (await ta.asAgent(direct.token, { method: 'PATCH', url, payload: { title: 'Runbook v2' } })).statusCode,
    200,
  );
  const proposal = await ta.asAgent(suggester.token, {
    method: 'PATCH',
    url,
    payload: { body: 'one\ntwo\nthree' },
  });
  const changeId = proposal.json().pending_change_id;

  const pending = await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${changeId}` });
  t.match(
    pending.json().diff,
    [{ field: 'body', diff: /^\+three$/m }],
    'the proposal shows its diff to the current text',
  );

  t.equal(
    (await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${changeId}/approve` })).statusCode,
    200,
  );
  // A move is no new version: only titles and bodies are history.
  const other = await owned(ta, '/api/pages', { space_id: home.id, title: 'Other' });
  t.equal((await ta.asOwner({ method: 'PATCH', url, payload: { parent_id: other.id } })).statusCode, 200);

  const list = await ta.asOwner({ method: 'GET', url: `${url}/versions` });
  t.equal(list.statusCode, 200);
  t.match(list.json(), {
    total: 4,
    items: [
      {
        n: 4,
        current: true,
        author: { kind: 'approval', agent_id: suggester.id, pending_change_id: changeId },
      },
      { n: 3, current: false, title: 'Runbook v2', author: { kind: 'agent', agent_id: direct.id } },
      { n: 2, author: { kind: 'owner', agent_id: null }, size: 'Runbook'.length + 'one\ntwo'.length },
      { n: 1, title: 'Runbook', author: { kind: 'owner' } },
    ],
  });
  t.ok(list.json().items.every((item: { created_at: string }) => !Number.isNaN(Date.parse(item.created_at))));

  const first = await ta.asOwner({ method: 'GET', url: `${url}/versions/1` });
  t.match(first.json(), { n: 1, title: 'Runbook', body: 'one' });
  t.match(first.json().diff, /^-# Runbook$/m, 'the diff to the current text shows the title');
  t.match(first.json().diff, /^\+three$/m);

  const agentRead = await ta.asAgent(direct.token, { method: 'GET', url: `${url}/versions` });
  t.equal(agentRead.statusCode, 403, 'history is the owner’s');
});

t.test('restoring a version makes a new one, audited', async (t) => {
  const page = await owned(ta, '/api/pages', { title: 'Plan', body: 'good text' });
  const url = `/api/pages/${page.id}`;
  await ta.asOwner({ method: 'PATCH', url, payload: { title: 'Plan!', body: 'oops, replaced' } });

  const restored = await ta.asOwner({ method: 'POST', url: `${url}/versions/1/restore` });
  t.equal(restored.statusCode, 200);
  t.match(restored.json(), {
    n: 3,
    title: 'Plan',
    restored_from: 1,
    current: true,
    author: { kind: 'owner' },
  });
  t.equal(restored.headers.etag, '"3"', "the page's new ETag");
  const now = await ta.asOwner({ method: 'GET', url });
  t.match(now.json(), { title: 'Plan', body: 'good text' });
  const [audit] = await ta.sql`
    select actor, detail from audit_log where action = 'restore_version' and entity_id = ${page.id}`;
  t.match(audit, { actor: 'owner', detail: { restored_from: 1, version: 3 } });

  const again = await ta.asOwner({ method: 'POST', url: `${url}/versions/3/restore` });
  t.match(again.json(), { n: 3 }, 'restoring the current text changes nothing');

  const missing = await ta.asOwner({ method: 'POST', url: `${url}/versions/9/restore` });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'PAGE_VERSION_NOT_FOUND');
  const noPage = await ta.asOwner({
    method: 'GET',
    url: '/api/pages/00000000-0000-4000-8000-000000000000/versions',
  });
  t.equal(noPage.statusCode, 404);
});

t.test('the purge keeps the retention and each page’s newest versions', async (t) => {
  t.ok(
    hub.cron({ sql: ta.sql, config: ta.config }).some((item) => item.task.name === 'page_history.purge'),
    'the purge is scheduled daily',
  );
  const page = await owned(ta, '/api/pages', { title: 'Log', body: '0' });
  for (let i = 1; i <= 5; i++) {
    await ta.asOwner({ method: 'PATCH', url: `/api/pages/${page.id}`, payload: { body: String(i) } });
  }
  // Versions 1 to 5 are old; the newest (6) is recent.
  await ta.sql`update page_versions set created_at = now() - interval '40 days' where page_id = ${page.id} and n <= 5`;
  await ta.sql`update page_versions set created_at = now() - interval '10 days' where page_id = ${page.id} and n = 4`;
  const setting = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/page_history',
    payload: { value: { retention_days: 30, keep_last: 2 } },
  });
  t.equal(setting.statusCode, 200);

  await enqueue(ta.sql, pageHistoryPurgeTask, {});
  const deadline = Date.now() + 60_000;
  let left: number[] = [];
  while (Date.now() < deadline) {
    const rows = await ta.sql<
      { n: number }[]
    >`select n from page_versions where page_id = ${page.id} order by n`;
    left = rows.map((row) => row.n);
    if (left.length < 6) break;
    await sleep(200);
  }
  t.same(left, [4, 5, 6], 'old versions go; the newest two and the recent one stay');
});
