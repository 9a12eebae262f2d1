// Routines through a fake OpenAI-compatible model on loopback and the in-process worker: a due routine runs once per
// minute, sees the timeline since its last run, and its suggest-tier page arrives as a pending change, never a page;
// a disabled routine does not run; run-now works; a bad schedule is refused with its code.
import t from 'tap';
import { enqueueDueRoutines } from '../../../domains/routines/run.ts';
import { recordEvent } from '../../../domains/timeline/record.ts';
import { createAgent, createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { freePort } from '../../helpers/process.ts';
import { fakeModel } from '../assistant/helpers.ts';

async function finishedRuns(ta: TestApp, id: string, count: number) {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const runs = (await ta.asOwner({ method: 'GET', url: `/api/routines/${id}/runs` })).json();
    const finished = runs.items.filter((run: { state: string }) => run.state !== 'running');
    if (finished.length >= count) return runs.items;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`routine ${id} did not finish ${count} runs`);
}

t.test('routines', async (t) => {
  let spaceId = '';
  const views: string[] = [];
  const model = await fakeModel(t, (round, messages) => {
    if (round === 0) {
      views.push(messages.map((message) => message.content ?? '').join('\n'));
      return {
        tool: 'create_page',
        arguments: { title: 'New devices triage', space_id: spaceId, body: 'printer-2: a printer' },
      };
    }
    return { text: 'Proposed names for the new devices.' };
  });
  const port = await freePort();
  const ta = await testApp(t, { worker: true, env: { ...model.env, HUB_URL: `http://127.0.0.1:${port}` } });
  await ta.app.listen({ port, host: '127.0.0.1' });
  spaceId = (await createSpace(ta, 'Home')).id;
  const agent = await createAgent(ta, { tier: 'suggest' });
  const base = {
    name: 'New devices triage',
    agent_id: agent.id,
    schedule: '0 3 * * *',
    prompt: 'Propose names and icons for the devices first seen since the last run.',
    space_id: spaceId,
  };

  const bad = await ta.asOwner({
    method: 'POST',
    url: '/api/routines',
    payload: { ...base, schedule: '61 * * * *' },
  });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().code, 'INVALID_SCHEDULE');
  const short = await ta.asOwner({
    method: 'POST',
    url: '/api/routines',
    payload: { ...base, schedule: '0 3 *' },
  });
  t.equal(short.json().code, 'INVALID_SCHEDULE');
  const ghost = await ta.asOwner({
    method: 'POST',
    url: '/api/routines',
    payload: { ...base, agent_id: '22222222-2222-4222-8222-222222222222' },
  });
  t.equal(ghost.json().code, 'AGENT_NOT_FOUND');
  t.equal(
    (await ta.asAgent(agent.token, { method: 'GET', url: '/api/routines' })).statusCode,
    403,
    'owner only',
  );

  const created = await ta.asOwner({ method: 'POST', url: '/api/routines', payload: base });
  t.equal(created.statusCode, 201, created.body);
  const routine = created.json();
  t.match(routine, { enabled: true, last_run_at: null });
  const off = (
    await ta.asOwner({
      method: 'POST',
      url: '/api/routines',
      payload: { ...base, name: 'Off', enabled: false },
    })
  ).json();
  await recordEvent(ta.sql, {
    kind: 'device.first_seen',
    title: 'New device printer-2 at 10.0.0.5',
    subject: { type: 'device', id: 'aa:bb:cc:dd:ee:ff' },
  });

  // The minute tick at 03:00: the enabled routine only, once however often the minute is ticked.
  const at = new Date(2026, 10, 27, 3, 0, 20);
  t.same(await enqueueDueRoutines({ sql: ta.sql }, at), [routine.id]);
  t.same(await enqueueDueRoutines({ sql: ta.sql }, at), [], 'the minute is claimed once');
  t.same(await enqueueDueRoutines({ sql: ta.sql }, new Date(2026, 10, 27, 3, 1)), [], 'not due at 03:01');
  const [run] = await finishedRuns(ta, routine.id, 1);
  t.match(run, {
    trigger: 'schedule',
    state: 'succeeded',
    output: 'Proposed names for the new devices.',
    error: null,
    usage: { model: 'fake-model', input_tokens: 200, output_tokens: 20 },
  });
  t.match(views[0], /New device printer-2 at 10\.0\.0\.5/, 'the view is the timeline since the last run');
  t.equal(run.drafts.length, 1);
  const change = await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${run.drafts[0]}` });
  t.match(change.json(), { entity_type: 'page', action: 'create', status: 'pending' });
  const [pages] = await ta.sql`select count(*)::int as n from pages where title = 'New devices triage'`;
  t.equal(pages.n, 0, 'a suggest-tier routine never writes directly');
  const [jobs] = await ta.sql`
    select count(*)::int as n from routine_runs where routine_id = ${routine.id}`;
  t.equal(jobs.n, 1, 'ticking the same minute twice ran it once');
  t.same(
    (await ta.asOwner({ method: 'GET', url: `/api/routines/${off.id}/runs` })).json().items,
    [],
    'disabled',
  );

  // Run now: the next period starts where the last one ended.
  const now = await ta.asOwner({ method: 'POST', url: `/api/routines/${routine.id}/run` });
  t.equal(now.statusCode, 202, now.body);
  const [latest, first] = await finishedRuns(ta, routine.id, 2);
  t.match(latest, { trigger: 'manual', state: 'succeeded' });
  t.equal(latest.period_since, first.period_until);
  t.notMatch(views[1], /printer-2 at 10\.0\.0\.5/, 'an event already seen is not seen again');

  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/routines/${routine.id}`,
    payload: { schedule: 'nope' },
  });
  t.equal(patched.json().code, 'INVALID_SCHEDULE');
  const disabled = await ta.asOwner({
    method: 'PATCH',
    url: `/api/routines/${routine.id}`,
    payload: { enabled: false },
  });
  t.match(disabled.json(), { enabled: false });
  t.same(
    await enqueueDueRoutines({ sql: ta.sql }, new Date(2026, 10, 28, 3, 0)),
    [],
    'a disabled routine is not due',
  );
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/routines/${routine.id}` })).statusCode, 204);
  const gone = await ta.asOwner({ method: 'GET', url: `/api/routines/${routine.id}/runs` });
  t.equal(gone.json().code, 'ROUTINE_NOT_FOUND');
});
