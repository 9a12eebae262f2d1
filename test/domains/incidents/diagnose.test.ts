// An incident's diagnosis through a fake OpenAI-compatible model on loopback and the in-process worker: with a
// suggest-tier infrastructure agent configured, an outage opens an incident, the agent is asked with the incident as
// its view, and its diagnosis arrives as a pending change to the incident's page while the page stays as it was.
// The setting refuses an owner-tier agent; without the setting no diagnosis is asked.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { followTimeline } from '../../../domains/incidents/follow.ts';
import { recordEvent } from '../../../domains/timeline/record.ts';
import { createAgent, type TestApp, testApp } from '../../helpers/app.ts';
import { freePort, until } from '../../helpers/process.ts';
import { fakeModel } from '../assistant/helpers.ts';

async function outage(ta: TestApp, service: string) {
  const id = randomUUID();
  await recordEvent(ta.sql, {
    kind: 'service.down',
    title: `${service} is down`,
    severity: 'critical',
    subject: { type: 'service', id },
    data: { service },
  });
  // The follower reads an event once no older transaction is running (in any database of the cluster).
  return until('the outage to be followed', async () => {
    await followTimeline(ta.sql);
    const [row] = await ta.sql<{ id: string; page_id: string }[]>`
      select id, page_id from incidents where root->>'id' = ${id}`;
    return row;
  });
}

const diagnoseJobs = (ta: TestApp) =>
  ta.sql<{ n: number }[]>`
    select count(*)::int as n from graphile_worker.jobs where task_identifier = 'incidents.diagnose'`;

t.test('diagnosis by the infrastructure agent', async (t) => {
  const views: string[] = [];
  const model = await fakeModel(t, (round, messages) => {
    if (round === 0) {
      const seen = messages.map((message) => message.content ?? '').join('\n');
      views.push(seen);
      // The incident's page as the view gives it.
      const pageId = /"page":\{"id":"([0-9a-f-]{36})"/.exec(seen)?.[1];
      return {
        tool: 'update_page',
        arguments: {
          id: pageId,
          body: '## Diagnosis\n\nThe NAS share went read-only; Jellyfin lost its media.',
        },
      };
    }
    return { text: 'Diagnosis proposed.' };
  });
  const port = await freePort();
  const ta = await testApp(t, { worker: true, env: { ...model.env, HUB_URL: `http://127.0.0.1:${port}` } });
  await ta.app.listen({ port, host: '127.0.0.1' });

  // No agent configured: an incident opens without a diagnosis job.
  await outage(ta, 'grafana');
  t.equal((await diagnoseJobs(ta))[0].n, 0, 'no agent, no diagnosis asked');
  t.equal(views.length, 0);

  const owner = await createAgent(ta, { tier: 'owner', name: 'root-infra' });
  const setAgent = (id: string) =>
    ta.asOwner({ method: 'PUT', url: '/api/settings/incidents.diagnosis_agent', payload: { value: id } });
  const refused = await setAgent(owner.id);
  t.equal(refused.statusCode, 400, refused.body);
  t.equal(refused.json().code, 'SETTING_INVALID', 'an owner-tier agent would write directly');

  const agent = await createAgent(ta, { tier: 'suggest', name: 'infra' });
  const set = await setAgent(agent.id);
  t.equal(set.statusCode, 200, set.body);

  const incident = await outage(ta, 'jellyfin');
  const pageId = incident.page_id;
  const before = (await ta.asOwner({ method: 'GET', url: `/api/pages/${pageId}` })).json();

  const change = await until('the diagnosis as a pending change', async () => {
    const [row] = await ta.sql<{ id: string }[]>`
      select id from pending_changes where entity_type = 'page' and entity_id = ${pageId}`;
    return row;
  });
  t.match(views[0], /jellyfin is down/, 'the incident is the turn’s view');
  t.match(views[0], new RegExp(incident.id), 'with its id');
  const pending = (await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${change.id}` })).json();
  t.match(pending, {
    entity_type: 'page',
    action: 'update',
    entity_id: pageId,
    status: 'pending',
    agent_id: agent.id,
    payload: { body: /The NAS share went read-only/ },
  });
  const after = (await ta.asOwner({ method: 'GET', url: `/api/pages/${pageId}` })).json();
  t.equal(after.body, before.body, 'the page itself is unchanged');
  t.notMatch(after.body, /read-only/);
});
