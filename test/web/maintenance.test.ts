// Outages and maintenance in a real browser: the Services screen marks a service whose alert is folded into its
// host's outage and one in a maintenance window; Settings lists the windows and adds one (covering a chosen
// service) from its form, and removes it.
import t from 'tap';
import { checkServices } from '../../domains/health/jobs.ts';
import { startFlakyServer } from '../helpers/alert-receiver.ts';
import { ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

// A browser, a hub and two rounds of checks: more than the default two minutes on a loaded machine.
t.setTimeout(300_000);
const web = await startFlakyServer(t);
const hub = await listeningHub(t);
const { page, problems } = await openBrowser(t);

async function post(url: string, payload: Record<string, unknown>) {
  const response = await hub.asOwner({ method: 'POST', url, payload });
  if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}
const slug = (name: string) => `/${name.toLowerCase().replaceAll(' ', '-')}`;
const service = (name: string, fields: Record<string, unknown> = {}) =>
  post('/api/health/services', {
    name,
    kind: 'http',
    url: `${web.url}${slug(name)}`,
    category: 'Lab',
    ...fields,
  });

const pve = await post('/api/resources', { name: 'pve1', kind: 'host' });
await service('pve1 web UI', { resource_id: pve.id, host_check: true });
await service('Grafana', { resource_id: pve.id });
const nas = await service('NAS');
await checkServices({ sql: hub.sql, config: hub.config }, {});
for (const name of ['pve1 web UI', 'Grafana', 'NAS']) web.failing.add(slug(name));
await post('/api/maintenance', {
  title: 'Disk swap',
  starts_at: new Date(Date.now() - 60_000).toISOString(),
  ends_at: new Date(Date.now() + 3_600_000).toISOString(),
  service_ids: [nas.id],
});
await checkServices({ sql: hub.sql, config: hub.config }, {});

t.test(
  'Services marks suppressed and in-maintenance services; Settings adds and removes windows',
  async (t) => {
    await page.goto(hub.origin);
    await page.getByLabel('Owner token').fill(ownerToken);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await visitScreen(page, hub.origin, '/services', 'Services');
    const lab = page.getByRole('region', { name: 'Lab', exact: true });
    const row = (name: string) =>
      lab.getByRole('listitem').filter({ has: page.getByText(name, { exact: true }) });
    await row('Grafana').getByText('Suppressed by pve1 web UI').waitFor();
    await row('NAS').getByText('In maintenance: Disk swap').waitFor();
    t.notOk(
      await row('pve1 web UI')
        .getByText(/Suppressed by/)
        .count(),
      'the root is not suppressed',
    );
    await screenshot(page, 'services-outage');
    await checkAccessible(t, page, 'services with an outage and maintenance');

    await visitScreen(page, hub.origin, '/settings', 'Settings');
    const section = page.getByRole('region', { name: 'Maintenance windows' });
    await section.getByText('Disk swap').waitFor();
    await section.getByText('On now').waitFor();
    await section.getByRole('button', { name: 'Add window' }).click();
    const form = section.getByRole('form', { name: 'New maintenance window' });
    await form.getByLabel('Title').fill('Router firmware');
    await form.getByLabel('Starts', { exact: true }).fill('2031-03-01T02:00');
    await form.getByLabel('Ends (one-off)').fill('2031-03-01T03:00');
    await form.getByLabel('Grafana').check();
    await form.getByLabel('Alert when it starts and ends').check();
    await checkAccessible(t, page, 'the maintenance window form');
    await form.getByRole('button', { name: 'Save window' }).click();
    await page.getByText('Maintenance window saved').waitFor();
    const added = section.getByRole('listitem').filter({ hasText: 'Router firmware' });
    await added.getByText('Grafana').waitFor();

    const [stored] = (await hub.asOwner({ method: 'GET', url: '/api/maintenance' }))
      .json()
      .items.filter((window: { title: string }) => window.title === 'Router firmware');
    t.match(stored, { notify_start_end: true, rrule: null, active: false });
    t.equal(stored.service_ids.length, 1);

    await added.getByRole('button', { name: 'Remove Router firmware' }).click();
    await added.waitFor({ state: 'detached' });
    t.equal((await hub.asOwner({ method: 'GET', url: '/api/maintenance' })).json().total, 1);
    t.same(problems, [], 'no console error or failed request');
  },
);
