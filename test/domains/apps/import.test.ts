// The Homepage import: a real configuration of 22 services in 4 groups (mdi-, si-, bare and missing icons,
// siteMonitor, ping and widgets), its bookmarks and widgets, parsed by the yaml library; a dry run that writes
// nothing, the import, and a second import that creates nothing new.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createSpace, testApp } from '../../helpers/app.ts';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const files = {
  services: await readFile(path.join(fixtures, 'services.yaml'), 'utf8'),
  bookmarks: await readFile(path.join(fixtures, 'bookmarks.yaml'), 'utf8'),
  widgets: await readFile(path.join(fixtures, 'widgets.yaml'), 'utf8'),
};
const ta = await testApp(t);
const space = await createSpace(ta, 'Links');

type Item = { kind: string; name: string; group?: string; reason?: string };
const named = (items: Item[], kind: string) =>
  items
    .filter((item) => item.kind === kind)
    .map((item) => (item.group ? `${item.group}/${item.name}` : item.name))
    .sort();

async function counts() {
  const [row] = await ta.sql`select (select count(*)::int from apps) as apps,
    (select count(*)::int from monitored_services) as services,
    (select count(*)::int from refs) as refs`;
  return row;
}

t.test('a dry run reports what the import would do and writes nothing', async (t) => {
  const response = await ta.asOwner({
    method: 'POST',
    url: '/api/import/homepage',
    payload: { ...files, space_id: space.id, dry_run: true },
  });
  t.equal(response.statusCode, 200, response.body);
  const report = response.json();
  t.equal(report.dry_run, true);
  t.equal(named(report.created, 'app').length, 22);
  t.same(named(report.created, 'service'), [
    'Home/Home Assistant',
    'Infrastructure/Pi-hole',
    'Infrastructure/Proxmox',
    'Media/Jellyfin',
    'Productivity/Nextcloud',
  ]);
  t.same(named(report.created, 'ref'), ['Developer/Github', 'Developer/MDN', 'Social/Reddit']);
  t.same(await counts(), { apps: 0, services: 0, refs: 0 });
  const weather = await ta.sql`select 1 from app_settings where key = 'weather'`;
  t.equal(weather.length, 0, 'no setting written');
});

t.test(
  'the import creates apps by group with mapped icons, checks, refs and the weather place',
  async (t) => {
    const response = await ta.asOwner({
      method: 'POST',
      url: '/api/import/homepage',
      payload: { ...files, space_id: space.id },
    });
    t.equal(response.statusCode, 200, response.body);
    const report = response.json();
    t.equal(report.dry_run, false);
    t.equal(named(report.created, 'app').length, 22);
    t.same(named(report.skipped, 'widget'), [
      'Infrastructure/Traefik',
      'Media/Radarr',
      'Media/Sonarr',
      'resources',
      'search',
    ]);
    const sonarr = report.skipped.find((item: Item) => item.name === 'Sonarr');
    t.match(sonarr.reason, /type sonarr/);
    t.same(named(report.skipped, 'service'), [], 'ping entries are checks now');
    t.same(
      named(report.updated, 'service'),
      ['Infrastructure/Router'],
      'the ping of the same host is reused',
    );
    t.same(named(report.skipped, 'icon'), ['Home/Frigate', 'Home/Mealie']);
    t.same(named(report.updated, 'setting'), ['weather']);

    const apps = (await ta.asOwner({ method: 'GET', url: '/api/apps?limit=100' })).json();
    t.equal(apps.total, 22);
    const groups = [...new Set(apps.items.map((app: { group: string }) => app.group))];
    t.same(groups, ['Media', 'Infrastructure', 'Home', 'Productivity'], 'groups in file order');
    const byName = new Map(apps.items.map((app: { name: string }) => [app.name, app]));
    t.match(byName.get('Jellyfin'), { icon: 'brand:jellyfin', position: 0, description: 'Movies and TV' });
    t.match(byName.get('Plex'), { icon: 'brand:plex', position: 3 });
    t.match(byName.get('Audiobookshelf'), { icon: 'mdi:headphones' });
    t.match(byName.get('Pi-hole'), { icon: 'brand:pihole' });
    t.match(byName.get('Home Assistant'), { icon: 'brand:homeassistant', status: 'pending' });
    t.match(byName.get('Navidrome'), { icon: null });
    t.match(byName.get('Frigate'), { icon: null });
    const services =
      await ta.sql`select id, name, category, url, kind, host from monitored_services order by name`;
    t.same(
      services.map((row) => `${row.category}/${row.name} ${row.url}`),
      [
        'Home/Home Assistant http://127.0.0.1:8123/',
        'Infrastructure/Pi-hole null',
        'Media/Jellyfin http://127.0.0.1:8096/health',
        'Productivity/Nextcloud https://127.0.0.1:8443/status.php',
        'Infrastructure/Proxmox https://127.0.0.1:8006/',
      ].sort((a, b) => a.split('/')[1].localeCompare(b.split('/')[1])),
    );
    const jellyfinService = services.find((row) => row.name === 'Jellyfin');
    t.equal((byName.get('Jellyfin') as { service_id: string }).service_id, jellyfinService?.id, 'linked');
    const ping = services.find((row) => row.name === 'Pi-hole');
    t.match(ping, { kind: 'ping', host: '127.0.0.1' }, 'a ping entry is a ping check of its host');
    t.equal((byName.get('Pi-hole') as { service_id: string }).service_id, ping?.id, 'linked to its app');
    t.equal((byName.get('Router') as { service_id: string }).service_id, ping?.id, 'one check per host');

    const refs = (await ta.asOwner({ method: 'GET', url: `/api/refs?space_id=${space.id}` })).json();
    t.same(
      refs.items
        .map((ref: { source: string; title: string; url: string }) => `${ref.source}/${ref.title} ${ref.url}`)
        .sort(),
      [
        'Developer/Github https://github.com/',
        'Developer/MDN https://developer.mozilla.org/',
        'Social/Reddit https://reddit.com/',
      ],
    );
    const [weather] = await ta.sql`select value from app_settings where key = 'weather'`;
    t.match(weather.value, { latitude: 50.449684, longitude: 30.525026, label: 'Kyiv', units: 'metric' });
  },
);

t.test('importing the same files again updates in place and creates nothing', async (t) => {
  const before = await counts();
  // The owner moved an app meanwhile: the import keeps it where it is.
  const apps = (await ta.asOwner({ method: 'GET', url: '/api/apps?group=Media' })).json().items;
  const plex = apps.find((app: { name: string }) => app.name === 'Plex');
  await ta.asOwner({ method: 'PATCH', url: `/api/apps/${plex.id}`, payload: { position: 0 } });
  const response = await ta.asOwner({
    method: 'POST',
    url: '/api/import/homepage',
    payload: { ...files, space_id: space.id },
  });
  t.equal(response.statusCode, 200, response.body);
  const report = response.json();
  t.same(report.created, []);
  t.equal(named(report.updated, 'app').length, 22);
  t.equal(named(report.updated, 'service').length, 6, 'four http checks, the ping for two apps');
  t.equal(named(report.updated, 'ref').length, 3);
  t.same(await counts(), before);
  const media = (await ta.asOwner({ method: 'GET', url: '/api/apps?group=Media' })).json().items;
  t.equal(media[0].name, 'Plex');
  t.same(
    media.map((app: { position: number }) => app.position),
    [0, 1, 2, 3, 4, 5],
  );
});

t.test('malformed YAML is a 400 with the file, line and column, and nothing is written', async (t) => {
  await ta.sql`delete from apps`;
  const response = await ta.asOwner({
    method: 'POST',
    url: '/api/import/homepage',
    payload: {
      services: '- Media:\n    - Plex:\n        href: http://127.0.0.1:1\n',
      widgets: '- openmeteo:\n    label: Kyiv: home\n    units: metric\n',
    },
  });
  t.equal(response.statusCode, 400);
  t.match(response.json(), { code: 'IMPORT_YAML_INVALID', file: 'widgets', line: 2, column: 12 });
  t.match(response.json().message, /^widgets\.yaml line 2, column 12: Nested mappings are not allowed/);
  t.equal((await counts()).apps, 0);
  const shape = await ta.asOwner({
    method: 'POST',
    url: '/api/import/homepage',
    payload: { services: 'just: a map' },
  });
  t.equal(shape.statusCode, 400);
  t.equal(shape.json().code, 'IMPORT_INVALID');
});
