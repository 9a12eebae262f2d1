// iconRefs are checked wherever they are written: devices (edit and review), monitored services (add, replace, edit,
// promote) and the assistant's avatar (its own route and the settings store). An unknown brand slug or a set icon
// that does not exist is 400 ICON_NOT_FOUND naming the ref, and nothing is stored.
import t from 'tap';
import { testApp } from '../../helpers/app.ts';
import { svg, uploadSet, zip } from './helpers.ts';

const unknownBrand = 'brand:no-such-brand-anywhere';
const missingSetIcon = 'set:home:no-such-icon';

t.test('every write of an iconRef checks that it names an icon', async (t) => {
  const ta = await testApp(t);
  t.equal(
    (await ta.asOwner(uploadSet('home', await zip([{ name: 'router.svg', bytes: svg() }])))).statusCode,
    201,
  );

  const device = await ta.asOwner({
    method: 'POST',
    url: '/api/devices',
    payload: { mac: 'aa:bb:cc:00:00:01' },
  });
  t.equal(device.statusCode, 201);
  await ta.asOwner({ method: 'POST', url: '/api/devices', payload: { mac: 'aa:bb:cc:00:00:02' } });
  await ta.sql`update lan_devices set status = 'new' where mac = 'aa:bb:cc:00:00:02'`;
  const service = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'NAS', kind: 'tcp', host: '127.0.0.1', port: 9 },
  });
  t.equal(service.statusCode, 201, service.body);
  const candidate = await ta.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'Found', kind: 'tcp', host: '127.0.0.1', port: 10 },
  });
  await ta.sql`update monitored_services set discovered = true where id = ${candidate.json().id}`;
  const settings = {
    avatar: null,
    accent: '#4f9cf9',
    persona: '',
    voiceMode: 'off',
    agent_id: null,
    infra_agent_id: null,
  };

  const writes: { what: string; send: (icon: string) => Parameters<typeof ta.asOwner>[0] }[] = [
    {
      what: 'device edit',
      send: (icon) => ({ method: 'PATCH', url: '/api/devices/aa:bb:cc:00:00:01', payload: { icon } }),
    },
    {
      what: 'device review',
      send: (icon) => ({
        method: 'PATCH',
        url: '/api/devices/discovered/aa:bb:cc:00:00:02',
        payload: { action: 'accept', icon },
      }),
    },
    {
      what: 'service add',
      send: (icon) => ({
        method: 'POST',
        url: '/api/health/services',
        payload: { name: 'Printer', kind: 'tcp', host: '127.0.0.1', port: 11 + icon.length, icon },
      }),
    },
    {
      what: 'service replace',
      send: (icon) => ({
        method: 'PUT',
        url: `/api/health/services/${service.json().id}`,
        payload: { name: 'NAS', kind: 'tcp', host: '127.0.0.1', port: 9, icon },
      }),
    },
    {
      what: 'service edit',
      send: (icon) => ({
        method: 'PATCH',
        url: `/api/health/services/${service.json().id}`,
        payload: { icon },
      }),
    },
    {
      what: 'candidate promote',
      send: (icon) => ({
        method: 'POST',
        url: `/api/health/discovered/${candidate.json().id}/promote`,
        payload: { icon },
      }),
    },
    {
      what: 'assistant avatar',
      send: (icon) => ({
        method: 'PUT',
        url: '/api/assistant/settings',
        payload: { ...settings, avatar: icon },
      }),
    },
    {
      what: 'assistant avatar in the settings store',
      send: (icon) => ({
        method: 'PUT',
        url: '/api/settings/assistant',
        payload: { value: { ...settings, avatar: icon } },
      }),
    },
  ];

  for (const write of writes) {
    for (const ref of [unknownBrand, missingSetIcon]) {
      const refused = await ta.asOwner(write.send(ref));
      t.equal(refused.statusCode, 400, `${write.what}: ${ref} refused`);
      t.equal(refused.json().code, 'ICON_NOT_FOUND', write.what);
      t.match(refused.json().message, ref, `${write.what}: the message names ${ref}`);
    }
  }
  const [stored] = await ta.sql`
    select (select count(*)::int from lan_devices where icon is not null) as devices,
           (select count(*)::int from monitored_services where icon is not null) as services,
           (select count(*)::int from monitored_services where not discovered) as curated,
           (select count(*)::int from app_settings where key = 'assistant') as settings`;
  t.same(stored, { devices: 0, services: 0, curated: 1, settings: 0 }, 'nothing refused was stored');

  for (const write of writes) {
    for (const ref of ['brand:github', 'set:home:router']) {
      const accepted = await ta.asOwner(write.send(ref));
      t.ok(
        accepted.statusCode < 300,
        `${write.what}: ${ref} accepted (${accepted.statusCode} ${accepted.body})`,
      );
      if (write.what === 'device review') {
        await ta.sql`update lan_devices set status = 'new' where mac = 'aa:bb:cc:00:00:02'`;
      }
      if (write.what === 'candidate promote') {
        await ta.sql`update monitored_services set discovered = true where id = ${candidate.json().id}`;
      }
    }
  }
  const emoji = await ta.asOwner({
    method: 'PUT',
    url: '/api/assistant/settings',
    payload: { ...settings, avatar: '🤖' },
  });
  t.equal(emoji.statusCode, 200, 'an emoji avatar is no iconRef and needs no icon');
});
