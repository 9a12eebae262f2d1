// Settings → Alerts in a real browser: add an ntfy target (its token never shown again), Test it against a fake ntfy,
// add a rule for it, raise an alert and see the delivery with the target's answer.
import t from 'tap';
import { raiseAlert } from '../../domains/alerts/raise.ts';
import { startNtfy } from '../domains/alerts/receivers.ts';
import { ownerToken } from '../helpers/app.ts';
import { until } from '../helpers/process.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot } from './browser.ts';

const token = 'tk_browsertoken0123456789';
const ntfy = await startNtfy(t, { token });
const hub = await listeningHub(t, { worker: true });
const { page, problems } = await openBrowser(t);

t.test('add a target, test it, route a rule to it and see what was delivered', async (t) => {
  await page.goto(`${hub.origin}/settings`);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const alerts = page.getByRole('region', { name: 'Alerts', exact: true });
  await alerts.getByText('No targets yet').waitFor();

  const form = alerts.getByRole('form', { name: 'New target' });
  await form.getByLabel('Name').fill('Phone');
  await form.getByLabel('Server').fill(ntfy.url);
  await form.getByLabel('Topic').fill('homelab');
  await form.getByLabel('Access token').fill(token);
  await form.getByRole('button', { name: 'Add target' }).click();
  const targets = alerts.getByRole('list', { name: 'Alert targets' });
  await targets.getByText('Phone').waitFor();
  t.equal(await form.getByLabel('Access token').inputValue(), '', 'the form forgets the token');

  await targets.getByRole('button', { name: 'Test' }).click();
  await targets
    .getByRole('status')
    .getByText(/Sent \(200\)/)
    .waitFor();
  t.equal(ntfy.requests.at(-1)?.headers.title, 'Test alert from ops-hub');
  t.equal(ntfy.requests.at(-1)?.headers.authorization, `Bearer ${token}`);

  const ruleForm = alerts.getByRole('form', { name: 'New rule' });
  await ruleForm.getByLabel('Events').fill('backup.*');
  await ruleForm.getByRole('checkbox', { name: 'Phone' }).check();
  await ruleForm.getByRole('button', { name: 'Add rule' }).click();
  await alerts.getByRole('list', { name: 'Alert rules' }).getByText('backup.* → Phone').waitFor();

  await raiseAlert(
    hub.sql,
    { config: hub.config },
    { event: 'backup.stale', title: 'Backups are stale', message: 'm' },
  );
  await until('the delivery sent', async () => {
    const [row] = await hub.sql`select status from alert_deliveries where status = 'sent'`;
    return row;
  });
  await page.reload();
  const deliveries = alerts.getByRole('table', { name: 'Alert deliveries' });
  await deliveries.getByRole('cell', { name: 'Backups are stale backup.stale' }).waitFor();
  t.match(await deliveries.textContent(), /Phone.*sent.*200/);
  t.notOk((await page.content()).includes(token), 'the page holds no secret');
  await screenshot(page, 'alerts-settings');
  await checkAccessible(t, page, 'settings with alerts');
  t.same(problems, []);
});
