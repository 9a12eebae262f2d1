// A suggest-tier agent's upload waits as a file on disk (0600 under DATA_DIR/pending-uploads), never as bytes in the
// database: the change keeps name, type, size and digest, lists are summaries, the owner downloads the file on its own
// route, and the file goes when the change is decided. Each agent's undecided changes are held to a quota.
import { createHash } from 'node:crypto';
import { readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { pendingFilePath, sweepPendingFiles } from '../../../domains/pending-changes/files.ts';
import { insertPendingChange } from '../../../domains/pending-changes/store.ts';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { approve } from '../../helpers/entities.ts';
import { multipart } from '../../helpers/multipart.ts';

function upload(ta: TestApp, token: string, spaceId: string, file: { name: string; bytes: Buffer | string }) {
  return ta.asAgent(token, {
    method: 'POST',
    url: '/api/capture/upload',
    ...multipart([
      { name: 'space_id', value: spaceId },
      { name: 'file', filename: file.name, type: 'text/plain', value: file.bytes },
    ]),
  });
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

async function filesIn(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).sort();
}

function setQuota(ta: TestApp, value: { max_changes: number; max_bytes: number }) {
  return ta.asOwner({ method: 'PUT', url: '/api/settings/pending_quota', payload: { value } });
}

t.test('a proposed upload is a 0600 file beside a row that describes it', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const agent = await createAgent(ta, { tier: 'suggest' });
  const text = `Notes from the agent\n${'line of text\n'.repeat(2000)}`;
  const proposed = await upload(ta, agent.token, space.id, { name: 'notes.txt', bytes: text });
  t.equal(proposed.statusCode, 202, proposed.body);
  const id = proposed.json().pending_change_id;

  const file = pendingFilePath(ta.dataDir, id);
  t.equal(file, path.join(ta.dataDir, 'pending-uploads', id));
  t.equal((await stat(file)).mode & 0o777, 0o600, 'the file is readable by the service alone');
  t.equal((await stat(path.dirname(file))).mode & 0o777, 0o700);
  t.same(await filesIn(path.join(ta.dataDir, 'incoming')), [], 'nothing is left where it was received');

  const [row] = await ta.sql`select payload::text as payload, octet_length(payload::text) as bytes,
    file_name, file_type, file_size, file_sha256 from pending_changes where id = ${id}`;
  t.ok(row.bytes < 200, `the row holds no file bytes (${row.bytes} bytes of payload)`);
  t.notMatch(row.payload, /content_base64|line of text/);
  t.same(
    { name: row.file_name, type: row.file_type, size: row.file_size, sha256: row.file_sha256 },
    { name: 'notes.txt', type: 'text/plain', size: Buffer.byteLength(text), sha256: sha256(text) },
  );

  const list = await ta.asOwner({ method: 'GET', url: '/api/pending-changes?status=pending&limit=100' });
  t.equal(list.statusCode, 200);
  t.ok(list.rawPayload.length < 2000, `the list is a summary (${list.rawPayload.length} bytes)`);
  t.match(list.json().items[0], {
    id,
    entity_type: 'upload',
    payload: { space_id: space.id },
    payload_truncated: false,
    file: { name: 'notes.txt', type: 'text/plain', size: Buffer.byteLength(text), sha256: sha256(text) },
  });

  const download = await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${id}/file` });
  t.equal(download.statusCode, 200);
  t.equal(download.body, text, 'the owner gets the bytes as sent');
  t.equal(
    download.headers['content-type'],
    'application/octet-stream',
    'never rendered as the declared type',
  );
  t.equal(
    download.headers['content-disposition'],
    `attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`,
  );
  t.equal(download.headers['x-content-type-options'], 'nosniff');
  t.equal(
    download.headers['repr-digest'],
    `sha-256=:${Buffer.from(sha256(text), 'hex').toString('base64')}:`,
  );
  const byAgent = await ta.asAgent(agent.token, { method: 'GET', url: `/api/pending-changes/${id}/file` });
  t.equal(byAgent.statusCode, 403, "the file is the owner's to fetch");
  t.equal((await ta.anon({ method: 'GET', url: `/api/pending-changes/${id}/file` })).statusCode, 401);

  const approved = await approve(ta, id);
  t.equal(approved.statusCode, 200, approved.body);
  const [doc] = await ta.sql`select content from source_docs where id = ${approved.json().result_entity_id}`;
  t.match(doc.content, /^Notes from the agent/, 'the approval stored the file');
  t.same(await filesIn(path.dirname(file)), [], 'the file goes once the change is applied');
  const gone = await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${id}/file` });
  t.equal(gone.statusCode, 404);
  t.equal(gone.json().code, 'PENDING_CHANGE_NOT_FOUND');
});

t.test('rejected: the file goes; a failed approval keeps it for another try', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const agent = await createAgent(ta, { tier: 'suggest' });
  const dir = path.join(ta.dataDir, 'pending-uploads');

  const rejected = (await upload(ta, agent.token, space.id, { name: 'a.txt', bytes: 'first' })).json();
  const kept = (await upload(ta, agent.token, space.id, { name: 'b.txt', bytes: 'second' })).json();
  t.same(await filesIn(dir), [rejected.pending_change_id, kept.pending_change_id].sort());
  const rejection = await ta.asOwner({
    method: 'POST',
    url: `/api/pending-changes/${rejected.pending_change_id}/reject`,
    payload: { reason: 'not needed' },
  });
  t.equal(rejection.statusCode, 200);
  t.same(await filesIn(dir), [kept.pending_change_id], 'the rejected change’s file is removed');

  // The space is deleted meanwhile: applying fails, the change is reopened and its file stays.
  await ta.asOwner({ method: 'DELETE', url: `/api/spaces/${space.id}?cascade=true` });
  const failed = await approve(ta, kept.pending_change_id);
  t.equal(failed.statusCode, 404, failed.body);
  t.equal(failed.json().pending_change.status, 'pending');
  t.same(await filesIn(dir), [kept.pending_change_id]);

  // A file that is no longer the one proposed is never applied.
  const space2 = await createSpace(ta);
  const tampered = (await upload(ta, agent.token, space2.id, { name: 'c.txt', bytes: 'original' })).json();
  await writeFile(pendingFilePath(ta.dataDir, tampered.pending_change_id), 'replaced');
  const refused = await approve(ta, tampered.pending_change_id);
  t.equal(refused.statusCode, 409);
  t.equal(refused.json().code, 'PENDING_FILE_CHANGED');
  t.equal(refused.json().pending_change.status, 'pending');

  // One gone from disk is named as such, on its route and on approval.
  await rm(pendingFilePath(ta.dataDir, tampered.pending_change_id));
  const missing = await ta.asOwner({
    method: 'GET',
    url: `/api/pending-changes/${tampered.pending_change_id}/file`,
  });
  t.equal(missing.statusCode, 404);
  t.equal(missing.json().code, 'PENDING_FILE_MISSING');
  t.equal((await approve(ta, tampered.pending_change_id)).json().code, 'PENDING_FILE_MISSING');
});

t.test('lists summarise long payloads; the change itself has them whole', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const agent = await createAgent(ta, { tier: 'suggest' });
  const body = 'word '.repeat(50_000);
  const proposed = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'Long page', body },
  });
  t.equal(proposed.statusCode, 202);
  const list = await ta.asOwner({ method: 'GET', url: '/api/pending-changes' });
  const [item] = list.json().items;
  t.equal(item.payload_truncated, true);
  t.equal(item.payload.title, 'Long page');
  t.equal(item.payload.body, `${body.slice(0, 500)}…`, 'a long string is cut to 500 characters');
  t.ok(list.rawPayload.length < 3000, `the list stays small (${list.rawPayload.length} bytes)`);
  const whole = await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${item.id}` });
  t.equal(whole.json().payload.body, body);
  t.equal(whole.json().payload_truncated, false);
});

t.test(
  'each agent has a quota of undecided changes: count and bytes, 429 PENDING_QUOTA beyond',
  async (t) => {
    const ta = await testApp(t, { env: { AGENT_RATE_LIMIT: '100000' } });
    const space = await createSpace(ta);
    const agent = await createAgent(ta, { tier: 'suggest' });
    const other = await createAgent(ta, { tier: 'suggest' });
    t.equal((await setQuota(ta, { max_changes: 3, max_bytes: 10_000 })).statusCode, 200);
    t.equal((await setQuota(ta, { max_changes: 0, max_bytes: 10_000 })).statusCode, 400);

    const page = (title: string, token = agent.token) =>
      ta.asAgent(token, { method: 'POST', url: '/api/pages', payload: { space_id: space.id, title } });
    const burst = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((title) => page(title)));
    t.same(
      burst.map((response) => response.statusCode).sort(),
      [202, 202, 202, 429, 429],
      'five proposals at once: exactly the quota passes',
    );
    const refused = burst.find((response) => response.statusCode === 429);
    t.equal(refused?.json().code, 'PENDING_QUOTA');
    t.match(refused?.json().message, /3 changes .*pending_quota/);
    t.equal((await page('other agent', other.token)).statusCode, 202, 'the quota is per agent');

    const ids = burst.filter((r) => r.statusCode === 202).map((r) => r.json().pending_change_id);
    await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${ids[0]}/reject`, payload: {} });
    t.equal((await page('room again')).statusCode, 202, 'a decided change makes room');
    await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${ids[1]}/reject`, payload: {} });

    // Bytes: two changes are open; a 12,000-byte upload does not fit in 10,000 bytes, and nothing of it is kept.
    const big = await upload(ta, agent.token, space.id, { name: 'big.txt', bytes: 'x'.repeat(12_000) });
    t.equal(big.statusCode, 429);
    t.equal(big.json().code, 'PENDING_QUOTA');
    t.same(await filesIn(path.join(ta.dataDir, 'incoming')), []);
    t.same(await filesIn(path.join(ta.dataDir, 'pending-uploads')), []);
    const small = await upload(ta, agent.token, space.id, { name: 'small.txt', bytes: 'x'.repeat(5_000) });
    t.equal(small.statusCode, 202, 'one that fits is taken');
    const full = await upload(ta, agent.token, space.id, { name: 'tiny.txt', bytes: 'x' });
    t.equal(full.statusCode, 429, 'the count is reached: refused before the file is read');
    const [{ n }] = await ta.sql`select count(*)::int as n from pending_changes where agent_id = ${agent.id}
    and status = 'pending'`;
    t.equal(n, 3);
  },
);

t.test('at start: uploads kept base64 in a payload move to files, files no change owns go', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const agent = await createAgent(ta, { tier: 'suggest' });
  const bytes = Buffer.from('legacy upload text');
  const legacy = () =>
    insertPendingChange(ta.sql, {
      agent_id: agent.id,
      entity_type: 'upload',
      action: 'create',
      entity_id: null,
      space_id: space.id,
      payload: {
        space_id: space.id,
        filename: 'old.txt',
        mimetype: 'text/plain',
        content_base64: bytes.toString('base64'),
      },
    });
  const waiting = await legacy();
  const decided = await legacy();
  await ta.sql`update pending_changes set status = 'rejected' where id = ${decided.id}`;
  const live = (await upload(ta, agent.token, space.id, { name: 'live.txt', bytes: 'live' })).json();
  const dir = path.join(ta.dataDir, 'pending-uploads');
  await writeFile(
    path.join(dir, '00000000-0000-4000-8000-000000000000'),
    'orphan of a change never committed',
  );
  await writeFile(path.join(dir, 'stray.tmp'), 'stray');
  await writeFile(path.join(dir, decided.id), 'a decided change keeps no file');

  const swept = await sweepPendingFiles(ta.sql, ta.dataDir, { info: () => undefined });
  t.same(swept, { moved: 2, removed: 3 });
  t.same(await filesIn(dir), [live.pending_change_id, waiting.id].sort());
  t.equal((await stat(pendingFilePath(ta.dataDir, waiting.id))).mode & 0o777, 0o600);
  const rows = await ta.sql`select id, payload, file_name, file_size, file_sha256 from pending_changes
    where id in ${ta.sql([waiting.id, decided.id])}`;
  for (const row of rows) {
    t.same(row.payload, { space_id: space.id }, 'no bytes left in the payload');
    t.same([row.file_name, row.file_size, row.file_sha256], ['old.txt', bytes.length, sha256(bytes)]);
  }
  const approved = await approve(ta, waiting.id);
  t.equal(approved.statusCode, 200, approved.body);
  const [doc] = await ta.sql`select content from source_docs where id = ${approved.json().result_entity_id}`;
  t.equal(doc.content, 'legacy upload text', 'a moved upload applies as before');
});
