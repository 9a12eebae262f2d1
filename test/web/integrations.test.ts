// Integrations in a real browser: a new owner's weather and Proxmox cards say they are not configured and open their
// forms in Settings → Integrations; a wrong token fails the test there, the right settings are tested and saved
// (the secret shown only as "set"), and both cards fill in without a restart.
import t from 'tap';
import { fakeOpenMeteo, fakeProxmox, pveToken } from '../domains/dashboard/fakes.ts';
import { ownerToken } from '../helpers/app.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const weather = await fakeOpenMeteo(t);
const pve = await fakeProxmox(t);
const hub = await listeningHub(t);
// The wrong token's test answers 422, as it should: the only failed request this test expects.
const { page, problems } = await openBrowser(t, {
  expected: [/HTTP 422: PUT .*\/api\/integrations\/proxmox$/],
});
const [tokenId, tokenSecret] = pveToken.split('=');

const layout = await hub.asOwner({
  method: 'PUT',
  url: '/api/dashboard/layout',
  payload: {
    mode: 'snap',
    cards: [
      { id: 'weather', type: 'weather', size: 4, config: { title: 'Weather' } },
      { id: 'cluster', type: 'cluster', size: 4, config: { title: 'Cluster' } },
    ],
  },
});
if (layout.statusCode !== 200) throw new Error(`the layout was refused: ${layout.body}`);
const target = await hub.asOwner({
  method: 'POST',
  url: '/api/alerts/targets',
  payload: {
    kind: 'gotify',
    name: 'Gotify on the NAS',
    fields: { url: 'http://127.0.0.1:9', token: 'gotify-app-token' },
  },
});
if (target.statusCode !== 201) throw new Error(`the alert target was refused: ${target.body}`);

t.test('configure weather and Proxmox from Settings, and see both cards fill in', async (t) => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const region = (name: string) => page.getByRole('region', { name, exact: true });
  await region('Weather').getByText('Not configured yet.').waitFor();
  await region('Cluster').getByText('Not configured yet.').waitFor();

  // The card's button opens the weather form.
  await region('Weather').getByRole('button', { name: 'Set up weather' }).click();
  await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
  const weatherForm = page.getByRole('form', { name: 'Weather (Open-Meteo)' });
  await weatherForm.getByLabel('Place name').fill('Berlin');
  await weatherForm.getByLabel('Latitude').fill('52.52');
  await weatherForm.getByLabel('Longitude').fill('13.41');
  await weatherForm.getByLabel('Open-Meteo URL').fill(weather.url);
  await weatherForm.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Weather (Open-Meteo) saved').waitFor();
  await weatherForm.getByText('configured here').waitFor();

  const proxmox = page.getByRole('form', { name: 'Proxmox VE' });
  await proxmox.getByLabel('URL').fill(pve.url);
  await proxmox.getByLabel('Token ID').fill(tokenId);
  await proxmox.getByLabel(/Token secret/).fill('not-the-secret');
  await proxmox.getByRole('button', { name: 'Test' }).click();
  t.match(
    await proxmox.getByRole('status').textContent(),
    /Test failed \(HTTP 401\).*ms/,
    'a wrong token fails the test, with the status and latency',
  );
  await proxmox.getByLabel(/Token secret/).fill(tokenSecret);
  await proxmox.getByRole('button', { name: 'Test' }).click();
  await proxmox
    .getByRole('status')
    .getByText(/Test passed \(HTTP 200\): Proxmox VE 8\.3\.0 · \d+ ms/)
    .waitFor();
  await proxmox.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Proxmox VE saved').waitFor();
  await proxmox.getByText('configured here').waitFor();
  t.match(await proxmox.textContent(), /Token secret \(set\)/, 'the secret is shown as set');
  t.equal(await proxmox.getByLabel(/Token secret/).inputValue(), '', 'never its value');
  t.notOk((await page.content()).includes(tokenSecret), 'the page holds no secret');
  t.match(
    await page.getByRole('region', { name: 'Integrations' }).textContent(),
    /Gotify on the NAS \(gotify, edited under Alerts\)/,
    'the alert targets are listed with where each is set',
  );
  await screenshot(page, 'integrations-settings');
  await checkAccessible(t, page, 'settings with integrations');

  await visitScreen(page, hub.origin, '/', 'Dashboard');
  await region('Weather').locator('.card-figure', { hasText: '°C' }).waitFor();
  t.match(await region('Weather').textContent(), /Berlin/);
  await region('Cluster')
    .getByText(/nodes online/)
    .waitFor();
  await screenshot(page, 'integrations-dashboard');
  t.same(problems, [], 'no console error or failed request');
});
