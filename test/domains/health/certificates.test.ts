// tls services against TLS servers on loopback with certificates from a test CA (trusted through HEALTH_CA_FILE):
// a valid chain is up with its subject, issuer, expiry and days left kept; an expired certificate, one for another
// name and one from an unknown CA are down; one expiring within warn_days is in state warning and raises
// certificate.expiring. An http service over https records the same certificate fields.
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { testApp } from '../../helpers/app.ts';
import { startHttpsServer, startTlsServer, testCa } from '../../helpers/tls.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const ca = testCa(t);
const stranger = testCa(t, 'Unknown CA');
const alerts = await startUpstream(t, (_request, response) => response.writeHead(200).end());
const ta = await testApp(t, { env: { HEALTH_CA_FILE: ca.file, ALERT_URL: `${alerts.url}/alerts` } });
const deps = { sql: ta.sql, config: ta.config };

async function create(payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url: '/api/health/services', payload });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.body}`);
  return response.json();
}
const service = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/services/${id}` })).json();

t.test('definitions: host required, port 443 by default, warn_days 14 by default', async (t) => {
  const missing = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'x', kind: 'tls' },
  });
  t.equal(missing.statusCode, 400);
  t.match(missing.json(), { code: 'INVALID_SERVICE_CHECK', message: /host is required for a tls check/ });
  const router = await create({ name: 'Router', kind: 'tls', host: 'router.lan' });
  t.match(router, { kind: 'tls', port: 443, warn_days: 14, target: 'tls://router.lan:443', url: null });
  await ta.asOwner({ method: 'DELETE', url: `/api/health/services/${router.id}` });
});

t.test('valid, expired, soon to expire, wrong name, unknown CA', async (t) => {
  const ports = {
    valid: await startTlsServer(t, ca.issue('127.0.0.1', 200)),
    expired: await startTlsServer(t, ca.issue('127.0.0.1', -1)),
    soon: await startTlsServer(t, ca.issue('127.0.0.1', 5)),
    wrongName: await startTlsServer(t, ca.issue('nas.other.lan', 200)),
    unknownCa: await startTlsServer(t, stranger.issue('127.0.0.1', 200)),
  };
  const services = Object.fromEntries(
    await Promise.all(
      Object.entries(ports).map(async ([name, port]) => [
        name,
        await create({ name, kind: 'tls', host: '127.0.0.1', port, category: 'Certificates' }),
      ]),
    ),
  ) as Record<keyof typeof ports, { id: string }>;
  await checkServices(deps, { ids: Object.values(services).map((s) => s.id) });

  const valid = await service(services.valid.id);
  t.match(valid, {
    state: 'up',
    message: /^certificate valid until \d{4}-\d\d-\d\d$/,
    details: {
      certificate: { subject: 'CN=127.0.0.1', issuer: 'CN=Hub Test CA', verified: true, error: null },
    },
  });
  t.ok(valid.details.certificate.days_left >= 198 && valid.details.certificate.days_left <= 200, 'days left');
  t.ok(Math.abs(Date.parse(valid.details.certificate.not_after) - (Date.now() + 200 * 86_400_000)) < 120_000);

  t.match(await service(services.expired.id), {
    state: 'down',
    message: /^certificate expired on /,
    details: { certificate: { verified: false, error: 'CERT_HAS_EXPIRED' } },
  });
  const soon = await service(services.soon.id);
  t.match(soon, { state: 'warning', message: /^certificate expires in 4 days/ });
  t.equal(soon.details.certificate.days_left, 4);
  t.match(await service(services.wrongName.id), {
    state: 'down',
    message: 'certificate not trusted: ERR_TLS_CERT_ALTNAME_INVALID',
    details: { certificate: { subject: 'CN=nas.other.lan' } },
  });
  t.match(await service(services.unknownCa.id), {
    state: 'down',
    message: /^certificate not trusted: /,
    details: { certificate: { issuer: 'CN=Unknown CA', verified: false } },
  });

  // The expiring certificate counts as up for uptime and is an event with the state change.
  const history = (
    await ta.asOwner({ method: 'GET', url: `/api/health/services/${services.soon.id}/history` })
  ).json();
  t.match(history, {
    uptime: { '24h': 100 },
    checks: [{ ok: true, state: 'warning', details: { certificate: {} } }],
  });
  const events = (
    await ta.asOwner({ method: 'GET', url: `/api/health/events?service_id=${services.soon.id}` })
  ).json();
  t.match(events.items, [{ from_state: 'pending', to_state: 'warning', message: /expires in 4 days/ }]);

  // The alerts raised (recorded; the rules decide where each goes).
  const raised = (event: string) =>
    ta.sql<{ title: string; data: Record<string, unknown> }[]>`
      select title, data from alerts where event = ${event} order by created_at`;
  const expiring = await raised('certificate.expiring');
  t.equal(expiring.length, 1, 'one certificate.expiring alert, for the soon-to-expire certificate');
  t.match(expiring[0], {
    title: 'soon: certificate expires in 4 days',
    data: { service: 'soon', days_left: 4, state: 'warning' },
  });
  t.equal((await raised('service.down')).length, 3);

  // Checked again, the warning stays a warning: no second alert.
  await checkServices(deps, { ids: [services.soon.id] });
  t.equal((await raised('certificate.expiring')).length, 1);

  // A self-signed home-lab certificate: with verify_tls off only the expiry counts.
  const lenient = await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${services.unknownCa.id}`,
    payload: { verify_tls: false },
  });
  t.equal(lenient.statusCode, 200);
  await checkServices(deps, { ids: [services.unknownCa.id, services.expired.id] });
  t.match(await service(services.unknownCa.id), { state: 'up' });
  await ta.asOwner({
    method: 'PATCH',
    url: `/api/health/services/${services.expired.id}`,
    payload: { verify_tls: false },
  });
  await checkServices(deps, { ids: [services.expired.id] });
  t.match(await service(services.expired.id), { state: 'down', message: /^certificate expired on / });
  for (const { id } of Object.values(services))
    await ta.asOwner({ method: 'DELETE', url: `/api/health/services/${id}` });
});

t.test('an http service over https records the certificate too', async (t) => {
  const port = await startHttpsServer(t, ca.issue('127.0.0.1', 60), (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
  );
  const web = await create({ name: 'Secure', kind: 'http', url: `https://127.0.0.1:${port}/` });
  await checkServices(deps, { ids: [web.id] });
  const checked = await service(web.id);
  t.match(checked, {
    state: 'up',
    message: 'HTTP 200',
    details: { certificate: { subject: 'CN=127.0.0.1', issuer: 'CN=Hub Test CA', verified: true } },
  });
  t.ok(checked.details.certificate.days_left >= 58 && checked.details.certificate.days_left <= 60);
});
