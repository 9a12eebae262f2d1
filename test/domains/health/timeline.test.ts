// A service's state changes on the ops timeline, each through the real check: a slow answer (service.degraded), back
// to normal (service.up), failing after its retries (service.down, only then), back (service.up "again", notice); an
// expired certificate (certificate.expired beside the down) and one in its warning days (certificate.expiring beside
// service.warning); a push service's missed heartbeat; pausing and resuming by the owner. Each with the service as
// its subject and the right severity and actor.
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { testApp } from '../../helpers/app.ts';
import { startTlsServer, testCa } from '../../helpers/tls.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const ca = testCa(t);
const behaviour = { delayMs: 0, status: 200 };
const web = await startUpstream(t, (_request, response) => {
  setTimeout(() => response.writeHead(behaviour.status).end('ok'), behaviour.delayMs);
});
const ta = await testApp(t, { env: { HEALTH_CA_FILE: ca.file } });
const deps = { sql: ta.sql, config: ta.config };

async function post(url: string, payload: Record<string, unknown> = {}) {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}
const eventsOf = (id: string) =>
  ta.sql<{ kind: string; severity: string; title: string; actor: string; subject_type: string }[]>`
    select kind, severity, title, actor, subject_type from events where subject_id = ${id} order by id`;
const check = (id: string) => checkServices(deps, { ids: [id] });

t.test('slow, normal, down after its retries, back up', async (t) => {
  const service = await post('/api/health/services', {
    name: 'Jellyfin',
    kind: 'http',
    url: `${web.url}/`,
    slow_ms: 200,
    retries: 1,
  });
  await check(service.id);
  behaviour.delayMs = 400;
  await check(service.id);
  behaviour.delayMs = 0;
  await check(service.id);
  behaviour.status = 503;
  await check(service.id);
  t.equal(
    (await eventsOf(service.id)).filter((e) => e.kind === 'service.down').length,
    0,
    'not on the first fail',
  );
  await check(service.id);
  behaviour.status = 200;
  await check(service.id);
  t.match(await eventsOf(service.id), [
    {
      kind: 'service.up',
      severity: 'info',
      title: /^Jellyfin is up/,
      actor: 'system',
      subject_type: 'service',
    },
    { kind: 'service.degraded', severity: 'warning', title: /^Jellyfin is slow/ },
    { kind: 'service.up', severity: 'info' },
    { kind: 'service.down', severity: 'critical', title: /^Jellyfin is down/ },
    { kind: 'service.up', severity: 'notice', title: /^Jellyfin is up again/ },
  ]);
  t.equal((await eventsOf(service.id)).length, 5, 'one event per change, none for a state kept');
});

t.test('certificates: expired and expiring', async (t) => {
  const expired = await post('/api/health/services', {
    name: 'NAS',
    kind: 'tls',
    host: '127.0.0.1',
    port: await startTlsServer(t, ca.issue('127.0.0.1', -1)),
  });
  const soon = await post('/api/health/services', {
    name: 'Router',
    kind: 'tls',
    host: '127.0.0.1',
    port: await startTlsServer(t, ca.issue('127.0.0.1', 5)),
  });
  await checkServices(deps, { ids: [expired.id, soon.id] });
  t.match(await eventsOf(expired.id), [
    { kind: 'service.down', severity: 'critical' },
    { kind: 'certificate.expired', severity: 'critical', title: /^NAS: certificate expired on/ },
  ]);
  t.match(await eventsOf(soon.id), [
    { kind: 'service.warning', severity: 'warning' },
    { kind: 'certificate.expiring', severity: 'warning', title: /^Router: certificate expires in/ },
  ]);
});

t.test('a missed heartbeat; paused and resumed by the owner', async (t) => {
  const push = await post('/api/health/services', {
    name: 'Nightly',
    kind: 'push',
    interval_s: 60,
    grace_s: 10,
  });
  await ta.sql`
    update monitored_services set checked_at = now() - interval '1 hour', created_at = now() - interval '1 hour'
    where id = ${push.id}`;
  await check(push.id);
  t.match(await eventsOf(push.id), [
    { kind: 'service.down' },
    { kind: 'heartbeat.missed', severity: 'warning', title: /^Nightly missed its heartbeat/ },
  ]);

  await post(`/api/health/services/${push.id}/pause`, { reason: 'moving the NAS' });
  await post(`/api/health/services/${push.id}/resume`);
  const [paused, resumed] = (await eventsOf(push.id)).slice(2);
  t.match(paused, { kind: 'service.paused', actor: 'owner', title: 'Nightly is paused: moving the NAS' });
  t.match(resumed, { kind: 'service.resumed', actor: 'owner' });
});
