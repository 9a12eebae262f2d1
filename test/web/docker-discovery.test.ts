// Apps from Docker in a real browser: the candidates a sync of the fake Engine API found are listed in Settings with
// their container's state; Promote adds one to the apps (its tile shows the container's state), Dismiss hides one.
import t from 'tap';
import { syncDocker } from '../../domains/docker/sync.ts';
import { ownerToken } from '../helpers/app.ts';
import { engineContainer, startFakeDocker } from '../helpers/docker.ts';
import { checkAccessible, listeningHub, openBrowser, screenshot, visitScreen } from './browser.ts';

const docker = await startFakeDocker(t, [
  engineContainer('media-sonarr-1', {
    Labels: {
      'com.docker.compose.project': 'media',
      'com.docker.compose.service': 'sonarr',
      'homepage.group': 'Media',
      'homepage.name': 'Sonarr',
      'homepage.icon': 'si-sonarr',
      'homepage.href': 'http://sonarr.home.test:8989',
    },
    Status: 'Up 3 hours (unhealthy)',
    Health: { Status: 'unhealthy', FailingStreak: 4 },
  }),
  engineContainer('grafana', {
    Labels: { 'traefik.http.routers.grafana.rule': 'Host(`grafana.home.test`)' },
  }),
  engineContainer('postgres'),
]);
const hub = await listeningHub(t, { env: { DOCKER_HOST: docker.host } });
await syncDocker({ sql: hub.sql, config: hub.config });
await hub.asOwner({
  method: 'PUT',
  url: '/api/dashboard/layout',
  payload: { mode: 'snap', cards: [{ id: 'tiles', type: 'apps', size: 12, h: 3 }] },
});
const { page, problems } = await openBrowser(t);

t.test('promote one candidate, dismiss another, and see the tile with its container state', async (t) => {
  await page.goto(hub.origin);
  await page.getByLabel('Owner token').fill(ownerToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await visitScreen(page, hub.origin, '/settings', 'Settings');

  const section = page.getByRole('region', { name: 'Apps from Docker' });
  const list = section.getByRole('list', { name: 'Discovered apps' });
  await list.locator('[data-candidate="Sonarr"]').waitFor();
  t.equal(await list.getByRole('listitem').count(), 2, 'the unlabelled container is no candidate');
  t.match(await list.locator('[data-candidate="Sonarr"]').textContent(), /running, unhealthy/);
  t.match(await list.locator('[data-candidate="grafana"]').textContent(), /https:\/\/grafana\.home\.test\//);
  await checkAccessible(t, page, 'settings with apps from Docker');

  await section.getByRole('button', { name: 'Promote Sonarr' }).click();
  await page.getByText('Sonarr added to the apps').waitFor();
  await list.locator('[data-candidate="Sonarr"]').getByText('promoted').waitFor();
  await section.getByRole('button', { name: 'Dismiss grafana' }).click();
  await page.getByText('grafana dismissed').waitFor();
  await list.locator('[data-candidate="grafana"]').waitFor({ state: 'detached' });
  await screenshot(page, 'docker-discovery-settings');

  await visitScreen(page, hub.origin, '/', 'Dashboard');
  const tile = page.locator('.app-tile[data-app="Sonarr"]');
  await tile.waitFor();
  t.equal(await tile.locator('[data-container]').textContent(), 'running, unhealthy');
  await screenshot(page, 'docker-discovery-tile');

  const apps = (await hub.asOwner({ method: 'GET', url: '/api/apps' })).json();
  t.match(apps.items, [{ name: 'Sonarr', group: 'Media', icon: 'brand:sonarr' }]);
  t.same(problems, [], 'no console errors or failed requests');
});
