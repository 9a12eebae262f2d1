// Docker discovery against a fake Engine API on a unix socket: the sync turns labelled containers into candidates
// (homepage.* labels, a Traefik Host rule; none for an unlabelled container), with their state and health; promote
// makes an app whose tile carries the container's state, dismiss holds across syncs, and a re-sync never overwrites
// the owner's edit of a promoted app.
import t from 'tap';
import { dockerCron } from '../../../domains/docker/jobs.ts';
import { syncDocker } from '../../../domains/docker/sync.ts';
import { type TestApp, testApp } from '../../helpers/app.ts';
import { type EngineContainer, engineContainer, startFakeDocker } from '../../helpers/docker.ts';
import { until } from '../../helpers/process.ts';

const compose = (project: string, service: string) => ({
  'com.docker.compose.project': project,
  'com.docker.compose.service': service,
  'com.docker.compose.container-number': '1',
});

function homelab(): EngineContainer[] {
  return [
    engineContainer('media-sonarr-1', {
      Labels: {
        ...compose('media', 'sonarr'),
        'homepage.group': 'Media',
        'homepage.name': 'Sonarr',
        'homepage.icon': 'sonarr.png',
        'homepage.href': 'http://sonarr.home.test:8989',
        'homepage.description': 'Series',
      },
      Status: 'Up 2 hours (healthy)',
      Health: { Status: 'healthy', FailingStreak: 0 },
    }),
    engineContainer('grafana', {
      Labels: {
        'traefik.enable': 'true',
        'traefik.http.routers.grafana.rule': 'Host(`grafana.home.test`)',
        'traefik.http.routers.grafana.entrypoints': 'websecure',
        'traefik.http.routers.grafana.tls.certresolver': 'le',
        'homepage.icon': 'mdi-chart-line',
      },
      // An older daemon: no Health field, the health only in the Status words.
      Status: 'Up 5 minutes (unhealthy)',
    }),
    engineContainer('whoami', {
      Labels: {
        'traefik.http.routers.whoami.rule': 'Host(`whoami.home.test`) && PathPrefix(`/who`)',
        'traefik.http.routers.whoami.entrypoints': 'web',
      },
    }),
    engineContainer('postgres', { Labels: { ...compose('db', 'postgres') } }),
    engineContainer('tools-backup-ui-1', {
      Labels: {
        ...compose('tools', 'backup-ui'),
        'homepage.group': 'Tools',
        'homepage.name': 'Backups',
        'homepage.href': 'https://backup.home.test',
      },
      State: 'exited',
      Status: 'Exited (0) 3 hours ago',
    }),
    engineContainer('odd', {
      Labels: { 'homepage.name': 'No link', 'homepage.href': 'ftp://files.home.test' },
    }),
  ];
}

type Candidate = { id: string; name: string; [field: string]: unknown };

async function discovered(ta: TestApp, query = ''): Promise<Candidate[]> {
  const response = await ta.asOwner({ method: 'GET', url: `/api/apps/discovered${query}` });
  if (response.statusCode !== 200) throw new Error(`discovered answered ${response.statusCode}`);
  return response.json().items;
}

const byName = (items: Candidate[], name: string) => {
  const found = items.find((item) => item.name === name);
  if (!found) throw new Error(`no candidate ${name}`);
  return found;
};

t.test('the sync makes candidates of labelled containers, with state and health', async (t) => {
  const docker = await startFakeDocker(t, homelab());
  const ta = await testApp(t, { env: { DOCKER_HOST: docker.host } });
  const report = await syncDocker({ sql: ta.sql, config: ta.config });
  t.same(report, { containers: 6, candidates: 4, forgotten: 0 });
  t.ok(docker.requests.includes('GET /containers/json?all=true'), 'all containers, stopped ones included');

  const items = await discovered(ta);
  t.same(items.map((item) => item.name).sort(), ['Backups', 'Sonarr', 'grafana', 'whoami']);
  t.match(byName(items, 'Sonarr'), {
    key: 'compose:media/sonarr',
    source: 'homepage',
    href: 'http://sonarr.home.test:8989',
    description: 'Series',
    group: 'Media',
    icon: 'brand:sonarr',
    icon_url: String,
    state: 'running',
    health: 'healthy',
    app_id: null,
    dismissed: false,
  });
  t.match(byName(items, 'grafana'), {
    key: 'container:grafana',
    source: 'homepage',
    href: 'https://grafana.home.test/',
    group: null,
    icon: 'mdi:chart-line',
    health: 'unhealthy',
  });
  t.match(byName(items, 'whoami'), { source: 'traefik', href: 'http://whoami.home.test/who', health: null });
  t.match(byName(items, 'Backups'), { state: 'exited', health: null, group: 'Tools' });
});

t.test('promote, dismiss and re-sync: the owner’s edits stay, the state follows the container', async (t) => {
  const containers = homelab();
  const docker = await startFakeDocker(t, containers);
  const ta = await testApp(t, { env: { DOCKER_HOST: docker.host } });
  const deps = { sql: ta.sql, config: ta.config };
  await syncDocker(deps);
  const items = await discovered(ta);
  const sonarr = byName(items, 'Sonarr');

  const promoted = await ta.asOwner({ method: 'POST', url: `/api/apps/discovered/${sonarr.id}/promote` });
  t.equal(promoted.statusCode, 201);
  const app = promoted.json();
  t.match(app, {
    name: 'Sonarr',
    href: 'http://sonarr.home.test:8989',
    description: 'Series',
    group: 'Media',
    icon: 'brand:sonarr',
    container: { state: 'running', health: 'healthy' },
  });
  const again = await ta.asOwner({ method: 'POST', url: `/api/apps/discovered/${sonarr.id}/promote` });
  t.equal(again.statusCode, 409);
  t.equal(again.json().code, 'DISCOVERED_APP_PROMOTED');
  t.match(byName(await discovered(ta), 'Sonarr'), { app_id: app.id });

  // A candidate without a group lands in the apps' default group.
  const grafana = byName(items, 'grafana');
  const grafanaApp = await ta.asOwner({ method: 'POST', url: `/api/apps/discovered/${grafana.id}/promote` });
  t.match(grafanaApp.json(), { group: 'Apps', container: { state: 'running', health: 'unhealthy' } });

  // The owner edits the promoted app; the labels change and the container stops.
  const edited = await ta.asOwner({
    method: 'PATCH',
    url: `/api/apps/${app.id}`,
    payload: { name: 'TV', description: 'my shows', href: 'https://tv.home.test' },
  });
  t.equal(edited.statusCode, 200);
  const sonarrContainer = containers[0];
  sonarrContainer.Labels['homepage.name'] = 'Sonarr v4';
  sonarrContainer.Labels['homepage.description'] = 'Series (new)';
  sonarrContainer.State = 'exited';
  sonarrContainer.Status = 'Exited (137) 1 second ago';
  sonarrContainer.Health = undefined;

  // Dismissed, the backup UI stays dismissed when the sync sees it again.
  const backups = byName(items, 'Backups');
  const dismissed = await ta.asOwner({ method: 'DELETE', url: `/api/apps/discovered/${backups.id}` });
  t.equal(dismissed.statusCode, 204);
  await syncDocker(deps);

  const afterSync = await ta.asOwner({ method: 'GET', url: `/api/apps/${app.id}` });
  t.match(afterSync.json(), {
    name: 'TV',
    description: 'my shows',
    href: 'https://tv.home.test',
    container: { state: 'exited', health: null },
  });
  const listed = (await ta.asOwner({ method: 'GET', url: '/api/apps?group=Media' })).json();
  t.match(listed.items[0], { id: app.id, container: { state: 'exited' } }, 'the list carries it too');
  const candidates = await discovered(ta);
  t.match(byName(candidates, 'Sonarr v4'), { app_id: app.id, description: 'Series (new)' });
  t.notOk(
    candidates.some((item) => item.name === 'Backups'),
    'the dismissed one is not listed',
  );
  t.match(await discovered(ta, '?dismissed=true'), [{ name: 'Backups', dismissed: true }]);

  // The container of the promoted app is removed; the whoami container too (never promoted: forgotten).
  containers.splice(0, 1);
  containers.splice(
    containers.findIndex((container) => container.Names[0] === '/whoami'),
    1,
  );
  const report = await syncDocker(deps);
  t.equal(report?.forgotten, 1);
  t.match((await ta.asOwner({ method: 'GET', url: `/api/apps/${app.id}` })).json(), {
    name: 'TV',
    container: { state: 'removed', health: null },
  });
  t.notOk((await discovered(ta)).some((item) => item.name === 'whoami'));

  // Promoting the dismissed one brings it back.
  const late = await ta.asOwner({ method: 'POST', url: `/api/apps/discovered/${backups.id}/promote` });
  t.equal(late.statusCode, 201);
  t.match(late.json(), { container: { state: 'exited' } });
  t.ok((await discovered(ta)).some((item) => item.name === 'Backups'));

  // An app not from Docker has no container.
  const plain = await ta.asOwner({
    method: 'POST',
    url: '/api/apps',
    payload: { name: 'Router', href: 'http://192.168.1.1' },
  });
  t.equal(plain.json().container, null);

  // Deleting the app leaves the candidate promotable again.
  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/apps/${app.id}` })).statusCode, 204);
  t.match(byName(await discovered(ta), 'Sonarr v4'), { app_id: null });
});

t.test('unknown candidates, owner only, an unreachable daemon changes nothing', async (t) => {
  const docker = await startFakeDocker(t, homelab());
  const ta = await testApp(t, { env: { DOCKER_HOST: docker.host } });
  const deps = { sql: ta.sql, config: ta.config };
  await syncDocker(deps);
  const absent = '00000000-0000-4000-8000-000000000000';
  for (const request of [
    { method: 'POST' as const, url: `/api/apps/discovered/${absent}/promote` },
    { method: 'DELETE' as const, url: `/api/apps/discovered/${absent}` },
  ]) {
    const response = await ta.asOwner(request);
    t.equal(response.statusCode, 404);
    t.equal(response.json().code, 'DISCOVERED_APP_NOT_FOUND');
  }
  t.equal((await ta.anon({ method: 'GET', url: '/api/apps/discovered' })).statusCode, 401);

  docker.failWith = { status: 500, message: 'Cannot connect to the containerd socket' };
  await t.rejects(syncDocker(deps), /HTTP 500 Cannot connect to the containerd socket/);
  t.equal((await discovered(ta)).length, 4, 'the candidates are as they were');
});

t.test('on demand as an action, and on the schedule only while Docker is configured', async (t) => {
  const docker = await startFakeDocker(t, homelab());
  const ta = await testApp(t, { worker: true, env: { DOCKER_HOST: docker.host } });
  const run = await ta.asOwner({
    method: 'POST',
    url: '/api/actions/run',
    payload: { action: 'docker.sync' },
  });
  t.equal(run.statusCode, 202);
  t.equal(run.json().task, 'docker.sync');
  await until('the sync’s candidates', async () => ((await discovered(ta)).length === 4 ? true : undefined));

  const [item] = dockerCron({ sql: ta.sql, config: ta.config });
  t.equal(item.task.name, 'docker.sync');
  const schedule = item.schedule as (deps: unknown) => Promise<string | null>;
  t.equal(await schedule({ sql: ta.sql, config: ta.config }), '*/5 * * * *');
  const changed = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/docker_sync',
    payload: { value: { enabled: true, schedule: '*/2 * * * *' } },
  });
  t.equal(changed.statusCode, 200);
  t.equal(
    await schedule({ sql: ta.sql, config: ta.config }),
    '*/2 * * * *',
    'a new schedule applies at once',
  );
  const bad = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/docker_sync',
    payload: { value: { enabled: true, schedule: 'every minute' } },
  });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().code, 'INVALID_SCHEDULE');

  const unconfigured = await testApp(t);
  t.equal(
    await schedule({ sql: unconfigured.sql, config: unconfigured.config }),
    null,
    'no runs without Docker',
  );
  t.equal(await syncDocker({ sql: unconfigured.sql, config: unconfigured.config }), null);
});
