// Maintenance windows: the owner's CRUD with its refusals; during a window a service going down is recorded but
// raises no alert (to a real receiver on ALERT_URL) and its uptime is unchanged; a window ended with the service
// still down alerts then; a recurring window (RRULE) applies on its occurrences only; start and end announcements;
// what a status page is given.
import t from 'tap';
import { checkServices } from '../../../domains/health/jobs.ts';
import { announceMaintenance } from '../../../domains/maintenance/jobs.ts';
import { maintenanceForStatusPage, occurrenceAt } from '../../../domains/maintenance/windows.ts';
import { alertsDelivered, startAlertReceiver, startFlakyServer } from '../../helpers/alert-receiver.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { absentId } from '../../helpers/routes.ts';

const receiver = await startAlertReceiver(t);
const web = await startFlakyServer(t);
const ta = await testApp(t, { worker: true, env: { ALERT_URL: receiver.url } });
const deps = { sql: ta.sql, config: ta.config };

async function post(url: string, payload: Record<string, unknown>) {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}
const service = (name: string, fields: Record<string, unknown> = {}) =>
  post('/api/health/services', { name, kind: 'http', url: `${web.url}/${name}`, ...fields });
const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

async function round(ids: string[]) {
  receiver.clear();
  await checkServices(deps, { ids });
  await alertsDelivered(ta.sql);
  return receiver.alerts();
}
const uptime = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/health/services/${id}/history` })).json().uptime;

t.test('the owner adds, reads, changes and removes windows; bad ones are 400', async (t) => {
  const nas = await service('crud-nas');
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/maintenance',
    payload: {
      title: 'Disk swap',
      starts_at: '2030-01-01T10:00:00Z',
      ends_at: '2030-01-01T12:00:00Z',
      service_ids: [nas.id],
    },
  });
  t.equal(created.statusCode, 201);
  const window = created.json();
  t.match(window, {
    title: 'Disk swap',
    rrule: null,
    service_ids: [nas.id],
    resource_ids: [],
    notify_start_end: false,
    active: false,
    current: null,
    next: { starts_at: '2030-01-01T10:00:00.000Z', ends_at: '2030-01-01T12:00:00.000Z' },
  });
  const list = (await ta.asOwner({ method: 'GET', url: '/api/maintenance' })).json();
  t.ok(list.items.some((item: { id: string }) => item.id === window.id));

  const recurring = await ta.asOwner({
    method: 'PATCH',
    url: `/api/maintenance/${window.id}`,
    payload: { ends_at: null, rrule: 'RRULE:FREQ=WEEKLY;BYDAY=SU', duration_minutes: 90 },
  });
  t.equal(recurring.statusCode, 200, recurring.body);
  t.match(recurring.json(), {
    rrule: 'RRULE:FREQ=WEEKLY;BYDAY=SU',
    duration_minutes: 90,
    ends_at: null,
    next: { starts_at: '2030-01-06T10:00:00.000Z', ends_at: '2030-01-06T11:30:00.000Z' },
  });

  const bad: [Record<string, unknown>, RegExp][] = [
    [{ title: 'x', starts_at: '2030-01-01T10:00:00Z', ends_at: '2030-01-01T09:00:00Z' }, /after starts_at/],
    [{ title: 'x', starts_at: '2030-01-01T10:00:00Z' }, /needs ends_at/],
    [{ title: 'x', starts_at: '2030-01-01T10:00:00Z', rrule: 'FREQ=DAILY' }, /duration_minutes/],
    [{ title: 'x', starts_at: '2030-01-01T10:00:00Z', rrule: 'nonsense', duration_minutes: 5 }, /rrule/],
    [{ title: 'x', starts_at: '2030-01-01T10:00:00Z', rrule: 'BYDAY=MO', duration_minutes: 5 }, /FREQ/],
    [
      { title: 'x', starts_at: '2030-01-01T10:00:00Z', rrule: 'FREQ=MINUTELY', duration_minutes: 5 },
      /hourly/,
    ],
  ];
  for (const [payload, message] of bad) {
    const response = await ta.asOwner({ method: 'POST', url: '/api/maintenance', payload });
    t.equal(response.statusCode, 400, JSON.stringify(payload));
    t.equal(response.json().code, 'INVALID_MAINTENANCE');
    t.match(response.json().message, message);
  }
  const unknown = await ta.asOwner({
    method: 'POST',
    url: '/api/maintenance',
    payload: {
      title: 'x',
      starts_at: '2030-01-01T10:00:00Z',
      ends_at: '2030-01-01T11:00:00Z',
      service_ids: [absentId],
    },
  });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().code, 'SERVICE_NOT_FOUND');

  const agent = await createAgent(ta, { tier: 'owner' });
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/maintenance' })).statusCode, 403);
  t.equal((await ta.anon({ method: 'GET', url: '/api/maintenance' })).statusCode, 401);

  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/maintenance/${window.id}` })).statusCode, 204);
  const gone = await ta.asOwner({ method: 'GET', url: `/api/maintenance/${window.id}` });
  t.equal(gone.statusCode, 404);
  t.equal(gone.json().code, 'MAINTENANCE_NOT_FOUND');
});

t.test('during a window: no alert, uptime unchanged; still down when it ends: alerted then', async (t) => {
  const rack = (await post('/api/resources', { name: 'rack', kind: 'host' })).id;
  const nas = await service('mw-nas', { resource_id: rack });
  const other = await service('mw-other');
  const ids = [nas.id, other.id];
  await round(ids);
  await round(ids);
  t.same(await uptime(nas.id), { '24h': 100, '7d': 100, '30d': 100 });

  const window = await post('/api/maintenance', {
    title: 'Rack rewiring',
    starts_at: minutesFromNow(-5),
    ends_at: minutesFromNow(55),
    resource_ids: [rack],
  });
  t.match((await ta.asOwner({ method: 'GET', url: `/api/health/services/${nas.id}` })).json(), {
    maintenance: { id: window.id, title: 'Rack rewiring' },
  });
  web.failing.add('/mw-nas');
  web.failing.add('/mw-other');
  const during = await round(ids);
  t.match(during, [{ event: 'service.down', service_id: other.id }], 'only the service outside the window');
  await round(ids);
  t.same(
    await uptime(nas.id),
    { '24h': 100, '7d': 100, '30d': 100 },
    'downtime in maintenance is not counted',
  );
  t.equal(
    (await ta.asOwner({ method: 'GET', url: `/api/health/services/${nas.id}` })).json().uptime_24h,
    100,
  );
  const [event] = (await ta.asOwner({ method: 'GET', url: `/api/health/events?service_id=${nas.id}` })).json()
    .items;
  t.match(
    event,
    { to_state: 'down', maintenance_id: window.id },
    'the change is recorded, naming the window',
  );

  await ta.asOwner({
    method: 'PATCH',
    url: `/api/maintenance/${window.id}`,
    payload: { ends_at: minutesFromNow(-1) },
  });
  t.match(
    await round(ids),
    [{ event: 'service.down', service_id: nas.id }],
    'still down once the window is over',
  );
  t.ok((await uptime(nas.id))['24h'] < 100, 'downtime after the window counts');
  web.failing.clear();
  t.equal((await round(ids)).length, 2, 'both come back with their own alerts');
});

t.test('a recurring window applies on its occurrences only', async (t) => {
  const rule = { starts_at: new Date('2026-01-04T02:00:00Z'), ends_at: null, duration_minutes: 120 };
  const weekly = { ...rule, rrule: 'FREQ=WEEKLY;BYDAY=SU' };
  t.ok(occurrenceAt(weekly, new Date('2026-03-01T03:00:00Z')), 'a Sunday at 03:00');
  t.same(occurrenceAt(weekly, new Date('2026-03-01T03:00:00Z')), {
    starts_at: new Date('2026-03-01T02:00:00Z'),
    ends_at: new Date('2026-03-01T04:00:00Z'),
  });
  t.equal(occurrenceAt(weekly, new Date('2026-03-01T04:00:00Z')), null, 'the end is outside');
  t.equal(occurrenceAt(weekly, new Date('2026-03-02T03:00:00Z')), null, 'a Monday');
  t.equal(occurrenceAt(weekly, new Date('2026-01-03T03:00:00Z')), null, 'before the first occurrence');
  const twice = { ...weekly, rrule: 'FREQ=WEEKLY;BYDAY=SU;COUNT=2' };
  t.ok(occurrenceAt(twice, new Date('2026-01-11T02:30:00Z')));
  t.equal(occurrenceAt(twice, new Date('2026-01-18T02:30:00Z')), null, 'COUNT ends it');

  // Daily windows: one whose occurrence is on now, one whose occurrences fall two hours from now.
  const onNow = await service('rr-on');
  const offNow = await service('rr-off');
  const ids = [onNow.id, offNow.id];
  await round(ids);
  const daily = (service_ids: string[], startOffset: number) =>
    post('/api/maintenance', {
      title: 'Nightly backup',
      starts_at: minutesFromNow(startOffset - 24 * 60),
      rrule: 'FREQ=DAILY',
      duration_minutes: 60,
      service_ids,
    });
  const on = await daily([onNow.id], -10);
  const off = await daily([offNow.id], 120);
  t.match(on, { active: true });
  t.match(off, { active: false, current: null });
  web.failing.add('/rr-on');
  web.failing.add('/rr-off');
  t.match(await round(ids), [{ event: 'service.down', service_id: offNow.id }]);
  t.equal(receiver.alerts().length, 1);
  web.failing.clear();
  await round(ids);

  const shown = await maintenanceForStatusPage(ta.sql, ids);
  t.match(shown, [
    { id: on.id, active: true, service_ids: [onNow.id] },
    { id: off.id, active: false, service_ids: [offNow.id] },
  ]);
  t.same(await maintenanceForStatusPage(ta.sql, [absentId]), [], 'only windows covering the page’s services');
});

t.test('notify_start_end raises maintenance.started and maintenance.ended once each', async (t) => {
  const nas = await service('an-nas');
  const window = await post('/api/maintenance', {
    title: 'Firmware',
    starts_at: minutesFromNow(-1),
    ends_at: minutesFromNow(30),
    service_ids: [nas.id],
    notify_start_end: true,
  });
  receiver.clear();
  t.equal(await announceMaintenance(deps), 1);
  t.equal(await announceMaintenance(deps), 0, 'a start is announced once');
  t.equal(await announceMaintenance(deps, new Date(Date.now() + 45 * 60_000)), 1);
  t.equal(await announceMaintenance(deps, new Date(Date.now() + 46 * 60_000)), 0);
  await alertsDelivered(ta.sql);
  t.match(receiver.alerts(), [
    { event: 'maintenance.started', maintenance_id: window.id, affected_service_ids: [nas.id] },
    { event: 'maintenance.ended', maintenance_id: window.id },
  ]);
  await ta.asOwner({ method: 'DELETE', url: `/api/maintenance/${window.id}` });
});
