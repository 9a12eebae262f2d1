// Each kind of event raised through its domain's real path, then found on the timeline (GET /api/timeline) with its
// subject and actor: device scans of a fake neighbour table, an agent's proposed page approved by the owner and its
// proposed action (a speed test, run by the fake runner) approved and another rejected, a page edited by an agent, a
// capture failing on a loopback site, a job the worker gives up, an alert sent to a loopback receiver, and a
// maintenance window starting and ending.
import path from 'node:path';
import t from 'tap';
import { scanDevices } from '../../../domains/devices/jobs.ts';
import { announceMaintenance } from '../../../domains/maintenance/jobs.ts';
import { addJob } from '../../../worker/enqueue.ts';
import { alertsDelivered, startAlertReceiver } from '../../helpers/alert-receiver.ts';
import { createAgent, createSpace, testApp } from '../../helpers/app.ts';
import { arpRow, fakeArpTable } from '../../helpers/arp.ts';
import { repoRoot, until } from '../../helpers/process.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import { captureUrl, settled } from '../capture/helpers.ts';

const table = await fakeArpTable(t);
const receiver = await startAlertReceiver(t);
const site = await startUpstream(t, (_request, response) => {
  response.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
});
const fakeSpeedtest = path.join(repoRoot, 'test', 'fixtures', 'fake-speedtest.ts');
const ta = await testApp(t, {
  worker: true,
  env: {
    ALERT_URL: receiver.url,
    DEVICES_ARP_FILE: table.file,
    DEVICES_NEIGH_COMMAND: 'off',
    SPEEDTEST_COMMAND: `"${process.execPath}" "${fakeSpeedtest}" ookla-1.0`,
    VOID_INGEST_ALLOW_PRIVATE: '1',
    INGEST_MAX_ATTEMPTS: '1',
  },
  extraTasks: {
    'test.explode': async () => {
      throw new Error('the disk is full');
    },
  },
});
const deps = { sql: ta.sql, config: ta.config };
const home = await createSpace(ta, 'Home');

interface Event {
  id: string;
  kind: string;
  severity: string;
  title: string;
  subject: { type: string; id: string } | null;
  actor: string;
  space_id: string | null;
  data: Record<string, unknown>;
}

/** The events of these kinds (`area.*` allowed), newest first, as the owner reads them. */
async function timeline(kinds: string, extra = ''): Promise<Event[]> {
  const response = await ta.asOwner({ method: 'GET', url: `/api/timeline?kinds=${kinds}${extra}&limit=200` });
  if (response.statusCode !== 200) throw new Error(response.body);
  return response.json().items;
}

t.test('device scans: first seen, address changed, offline and back', async (t) => {
  const mac = '3c:22:fb:00:00:01';
  await table.write([arpRow('192.168.1.20', mac)]);
  await scanDevices(deps);
  const [first] = await timeline('device.*');
  t.match(first, {
    kind: 'device.first_seen',
    severity: 'notice',
    title: /^New device 3c:22:fb:00:00:01/,
    subject: { type: 'device', id: mac },
    actor: 'system',
    space_id: null,
    data: { ip: '192.168.1.20' },
  });

  await table.write([arpRow('192.168.1.21', mac)]);
  await scanDevices(deps);
  t.match((await timeline('device.*'))[0], {
    kind: 'device.ip_changed',
    subject: { type: 'device', id: mac },
    data: { ip: '192.168.1.21', previous_ip: '192.168.1.20' },
  });

  const watched = await ta.asOwner({ method: 'PATCH', url: `/api/devices/${mac}`, payload: { watch: true } });
  t.equal(watched.statusCode, 200, watched.body);
  await table.write([]);
  await scanDevices(deps);
  await ta.sql`update lan_devices set last_seen = now() - interval '1 hour' where mac = ${mac}`;
  await scanDevices(deps);
  t.match((await timeline('device.*'))[0], {
    kind: 'device.offline',
    severity: 'warning',
    subject: { type: 'device', id: mac },
  });
  await table.write([arpRow('192.168.1.21', mac)]);
  await scanDevices(deps);
  t.match((await timeline('device.*'))[0], { kind: 'device.back', subject: { type: 'device', id: mac } });
  t.same(
    (await timeline('device.*', `&subject=device:${mac}`)).map((event) => event.kind),
    ['device.back', 'device.offline', 'device.ip_changed', 'device.first_seen'],
  );
});

t.test(
  'a proposed page: proposed by the agent, approved by the owner, created in the agent’s words',
  async (t) => {
    const agent = await createAgent(ta, { tier: 'suggest', space_id: home.id });
    const proposed = await ta.asAgent(agent.token, {
      method: 'POST',
      url: '/api/pages',
      payload: { title: 'Backups runbook', body: 'Restore from the NAS.' },
    });
    t.equal(proposed.statusCode, 202, proposed.body);
    const changeId = proposed.json().pending_change_id;
    t.match((await timeline('pending_change.*'))[0], {
      kind: 'pending_change.proposed',
      title: 'Change proposed: create page: Backups runbook',
      subject: { type: 'pending_change', id: changeId },
      actor: agent.id,
      space_id: home.id,
    });
    t.same(await timeline('page.*'), [], 'the rehearsal of the proposal is no edit');
    const approved = await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${changeId}/approve` });
    t.equal(approved.statusCode, 200, approved.body);
    t.match((await timeline('pending_change.*'))[0], {
      kind: 'pending_change.approved',
      subject: { type: 'pending_change', id: changeId },
      actor: 'owner',
    });
    const [created] = await timeline('page.*');
    t.match(created, {
      kind: 'page.created',
      title: 'Page “Backups runbook” created',
      subject: { type: 'page' },
      actor: agent.id,
      space_id: home.id,
      data: { pending_change_id: changeId, approved_by: 'owner' },
    });

    const rejectedProposal = await ta.asAgent(agent.token, {
      method: 'POST',
      url: '/api/pages',
      payload: { title: 'Delete everything' },
    });
    const rejected = await ta.asOwner({
      method: 'POST',
      url: `/api/pending-changes/${rejectedProposal.json().pending_change_id}/reject`,
      payload: { reason: 'no' },
    });
    t.equal(rejected.statusCode, 200, rejected.body);
    t.match((await timeline('pending_change.rejected'))[0], {
      title: 'Change rejected: create page: Delete everything',
      actor: 'owner',
    });
  },
);

t.test('a page edited by an owner-tier agent, and by the owner', async (t) => {
  const page = await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { title: 'NAS', space_id: home.id },
  });
  t.equal(page.statusCode, 201, page.body);
  const writer = await createAgent(ta, { tier: 'owner' });
  const edited = await ta.asAgent(writer.token, {
    method: 'PATCH',
    url: `/api/pages/${page.json().id}`,
    payload: { body: 'Four disks, RAID-Z1.' },
  });
  t.equal(edited.statusCode, 200, edited.body);
  const [update, create] = await timeline('page.*', `&subject=page:${page.json().id}`);
  t.match(update, { kind: 'page.updated', title: 'Page “NAS” updated', actor: writer.id, space_id: home.id });
  t.match(create, { kind: 'page.created', actor: 'owner', space_id: home.id });
  t.equal(update.data.version, 2);
});

t.test('an agent’s action: proposed, approved (its speed test then runs) and another rejected', async (t) => {
  const agent = await createAgent(ta, { tier: 'suggest' });
  const propose = () =>
    ta.asAgent(agent.token, {
      method: 'POST',
      url: '/api/actions/run',
      payload: { action: 'speedtest.run' },
    });
  const first = await propose();
  t.equal(first.statusCode, 202, first.body);
  const actionId = first.json().action_id;
  t.match((await timeline('pending_action.*'))[0], {
    kind: 'pending_action.proposed',
    title: 'Action proposed: run speedtest.run',
    subject: { type: 'pending_action', id: actionId },
    actor: agent.id,
  });
  const approved = await ta.asOwner({ method: 'POST', url: `/api/actions/${actionId}/approve` });
  t.equal(approved.statusCode, 200, approved.body);
  t.match((await timeline('pending_action.*'))[0], { kind: 'pending_action.approved', actor: 'owner' });
  const speedtest = await until('the speed test to be on the timeline', async () => {
    const [event] = await timeline('speedtest.*');
    return event;
  });
  t.match(speedtest, {
    kind: 'speedtest.completed',
    title: 'Speed test: 93.8 Mbit/s down, 20 up',
    subject: { type: 'speedtest' },
    actor: 'system',
    data: { download_mbps: 93.75, upload_mbps: 20 },
  });
  const second = await propose();
  const rejected = await ta.asOwner({
    method: 'POST',
    url: `/api/actions/${second.json().action_id}/reject`,
    payload: {},
  });
  t.equal(rejected.statusCode, 200, rejected.body);
  t.match((await timeline('pending_action.*'))[0], { kind: 'pending_action.rejected', actor: 'owner' });
});

t.test('a capture failing: on the timeline in its space', async (t) => {
  const url = `${site.url}/missing-article`;
  const capture = await captureUrl(ta, url, { space_id: home.id });
  const job = await settled(ta, capture.job_id);
  t.equal(job.state, 'failed');
  t.match((await timeline('capture.*'))[0], {
    kind: 'capture.failed',
    severity: 'warning',
    title: new RegExp(`^Capture of ${url} failed`),
    subject: { type: 'capture', id: capture.capture_id },
    space_id: home.id,
    data: { url },
  });
});

t.test('a job given up, and an alert sent', async (t) => {
  const rule = await ta.asOwner({
    method: 'POST',
    url: '/api/alerts/rules',
    payload: { events: ['job.*'], targets: [] },
  });
  t.equal(rule.statusCode, 201, rule.body);
  const job = await addJob(ta.sql, 'test.explode', {}, { maxAttempts: 1 });
  const failed = await until('the job failure to be on the timeline', async () => {
    const [event] = await timeline('job.failed', `&subject=job:${job.id}`);
    return event;
  });
  t.match(failed, {
    severity: 'warning',
    title: 'Job test.explode failed: the disk is full',
    subject: { type: 'job', id: job.id },
    actor: 'system',
  });
  await alertsDelivered(ta.sql);
  const sent = await timeline('alert.sent');
  t.match(
    sent.find((event) => event.data.event === 'job.failed'),
    { title: /^Alert sent to .+: Job test\.explode failed$/, subject: { type: 'alert' }, actor: 'system' },
  );
});

t.test('a maintenance window starting and ending', async (t) => {
  const now = Date.now();
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/maintenance',
    payload: {
      title: 'Disk swap',
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 60 * 60_000).toISOString(),
    },
  });
  t.equal(created.statusCode, 201, created.body);
  const id = created.json().id;
  await announceMaintenance(deps);
  t.match((await timeline('maintenance.*'))[0], {
    kind: 'maintenance.started',
    title: 'Maintenance: Disk swap',
    subject: { type: 'maintenance', id },
  });
  await announceMaintenance(deps);
  t.equal((await timeline('maintenance.*')).length, 1, 'a start is recorded once');
  await announceMaintenance(deps, new Date(now + 2 * 60 * 60_000));
  t.same(
    (await timeline('maintenance.*')).map((event) => event.kind),
    ['maintenance.ended', 'maintenance.started'],
  );
});
