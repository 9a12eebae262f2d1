// Pausing a service: it is not checked, its state is paused with an event giving the reason, it raises no alert,
// counts neither up nor down for uptime, shows paused (grey) on status pages and badges; resuming checks it at once.
// A paused push service refuses heartbeats, and resumed it has a full interval for its next one.
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { alertsDelivered } from '../../helpers/alert-receiver.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { until } from '../../helpers/process.ts';
import { startUpstream } from '../../helpers/upstream.ts';

let status = 200;
const web = await startUpstream(t, (_request, response) => response.writeHead(status).end('hello'));
const alerts = await startUpstream(t, (_request, response) => response.writeHead(200).end());
const ta = await testApp(t, { worker: true, env: { ALERT_URL: `${alerts.url}/alerts` } });
const deps = { sql: ta.sql, config: ta.config };

async function create(payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url: '/api/health/services', payload });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.body}`);
  return response.json() as { id: string; push_token: string | null };
}
const read = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/services/${id}` })).json();
const events = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/events?service_id=${id}` })).json().items;
const resultCount = async (id: string) =>
  (await ta.sql<{ n: number }[]>`select count(*)::int as n from health_results where service_id = ${id}`)[0]
    .n;
const sentAbout = (id: string) =>
  alerts.requests.map((request) => JSON.parse(request.body)).filter((alert) => alert.service_id === id);

t.test(
  'a paused service is not checked, raises nothing and shows paused; resumed, it is checked at once',
  async (t) => {
    const web1 = await create({ name: 'Wiki', kind: 'http', url: `http://127.0.0.1:${web.port}/wiki` });
    await checkServices(deps, { ids: [web1.id] });
    status = 500;
    await checkServices(deps, { ids: [web1.id] });
    t.equal((await read(web1.id)).state, 'down');
    await alertsDelivered(ta.sql);
    t.equal(sentAbout(web1.id).length, 1, 'the outage was alerted');
    const uptimeBefore = (
      await ta.asOwner({ method: 'GET', url: `/api/health/services/${web1.id}/history` })
    ).json().uptime;
    t.equal(uptimeBefore['24h'], 50);

    const paused = await ta.asOwner({
      method: 'POST',
      url: `/api/health/services/${web1.id}/pause`,
      payload: { reason: 'router firmware upgrade' },
    });
    t.equal(paused.statusCode, 200, paused.body);
    t.match(paused.json(), { state: 'paused', enabled: false, message: 'router firmware upgrade' });
    t.match((await events(web1.id))[0], {
      from_state: 'down',
      to_state: 'paused',
      message: 'router firmware upgrade',
    });
    const again = await ta.asOwner({ method: 'POST', url: `/api/health/services/${web1.id}/pause` });
    t.equal(again.statusCode, 200, 'pausing a paused service is no error');
    t.equal(
      (await events(web1.id)).filter((event: { to_state: string }) => event.to_state === 'paused').length,
      1,
    );

    const requestsBefore = web.requests.length;
    const checksBefore = await resultCount(web1.id);
    await checkServices(deps, {});
    await checkServices(deps, { ids: [web1.id] });
    await checkServices(deps, { due: true });
    t.equal(web.requests.length, requestsBefore, 'nothing asks a paused service');
    t.equal(await resultCount(web1.id), checksBefore, 'no check is recorded');
    t.equal((await read(web1.id)).state, 'paused');
    const history = await ta.asOwner({ method: 'GET', url: `/api/health/services/${web1.id}/history` });
    t.same(history.json().uptime, uptimeBefore, 'uptime counts the pause neither up nor down');
    await alertsDelivered(ta.sql);
    t.equal(sentAbout(web1.id).length, 1, 'pausing raised no alert');

    const groups = (await ta.asOwner({ method: 'GET', url: '/api/health/services' })).json().groups;
    const listed = groups.flatMap((group: { services: { id: string }[] }) => group.services);
    t.match(
      listed.find((service: { id: string }) => service.id === web1.id),
      { state: 'paused' },
    );

    const page = await ta.asOwner({
      method: 'POST',
      url: '/api/status-pages',
      payload: { slug: 'home', title: 'Home', services: [web1.id], public: true },
    });
    t.equal(page.statusCode, 201, page.body);
    const shown = (await ta.anon({ method: 'GET', url: '/api/status/home' })).json();
    t.match(shown.services[0], { id: web1.id, state: 'paused' });
    const badge = await ta.anon({ method: 'GET', url: `/api/badge/${web1.id}/status.svg` });
    t.match(badge.body, />paused</);
    t.match(badge.body, /#9f9f9f/, 'grey');

    status = 200;
    const resumed = await ta.asOwner({ method: 'POST', url: `/api/health/services/${web1.id}/resume` });
    t.equal(resumed.statusCode, 200, resumed.body);
    t.match(resumed.json(), { enabled: true });
    await until('the resumed service to be checked', async () =>
      (await read(web1.id)).state === 'up' ? true : undefined,
    );
    t.ok(web.requests.length > requestsBefore, 'checked at once, not at its next interval');
    t.match((await events(web1.id)).slice(0, 2), [
      { from_state: 'pending', to_state: 'up' },
      { from_state: 'paused', to_state: 'pending' },
    ]);
    await alertsDelivered(ta.sql);
    t.equal(sentAbout(web1.id).length, 1, 'coming back from a pause is no recovery alert');
  },
);

t.test(
  'a paused push service refuses heartbeats; resumed, it has a full interval for the next one',
  async (t) => {
    const push = await create({ name: 'Backup', kind: 'push', interval_s: 60, grace_s: 30 });
    t.equal((await ta.anon({ method: 'GET', url: `/api/push/${push.push_token}` })).statusCode, 200);
    await ta.asOwner({ method: 'POST', url: `/api/health/services/${push.id}/pause` });
    t.equal((await ta.anon({ method: 'GET', url: `/api/push/${push.push_token}` })).statusCode, 404);
    t.equal((await ta.anon({ method: 'POST', url: `/api/ping/${push.push_token}` })).statusCode, 404);
    // Paused for longer than its interval and grace: no miss is counted meanwhile, nor at once on resuming.
    await ta.sql`update monitored_services set checked_at = now() - interval '1 hour' where id = ${push.id}`;
    await checkServices(deps, {});
    t.equal((await read(push.id)).state, 'paused');
    await ta.asOwner({ method: 'POST', url: `/api/health/services/${push.id}/resume` });
    await checkServices(deps, {});
    t.equal((await read(push.id)).state, 'pending', 'no heartbeat is overdue yet');
    t.equal((await ta.anon({ method: 'GET', url: `/api/push/${push.push_token}` })).statusCode, 200);
    t.equal((await read(push.id)).state, 'up');
  },
);

t.test('only the owner pauses and resumes, a service that exists', async (t) => {
  const tcp = await create({ name: 'SSH', kind: 'tcp', host: '127.0.0.1', port: 22 });
  const agent = await createAgent(ta, { tier: 'owner' });
  for (const action of ['pause', 'resume']) {
    const url = `/api/health/services/${tcp.id}/${action}`;
    t.equal(
      (await ta.asAgent(agent.token, { method: 'POST', url })).statusCode,
      403,
      `${action}: owner only`,
    );
    const unknown = await ta.asOwner({
      method: 'POST',
      url: `/api/health/services/00000000-0000-4000-8000-000000000000/${action}`,
    });
    t.equal(unknown.statusCode, 404);
    t.equal(unknown.json().code, 'SERVICE_NOT_FOUND');
  }
  const long = await ta.asOwner({
    method: 'POST',
    url: `/api/health/services/${tcp.id}/pause`,
    payload: { reason: 'x'.repeat(501) },
  });
  t.equal(long.statusCode, 400);
  const resumeActive = await ta.asOwner({ method: 'POST', url: `/api/health/services/${tcp.id}/resume` });
  t.equal(resumeActive.statusCode, 200, 'resuming a service not paused changes nothing');
  t.equal((await events(tcp.id)).length, 0);
});
