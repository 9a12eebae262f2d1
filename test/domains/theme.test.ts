import t from 'tap';
import { defaultPalette } from '../../domains/theme/setting.ts';
import { createAgent, testApp } from '../helpers/app.ts';

const colourNames = [
  'background',
  'surface',
  'surface_alt',
  'border',
  'text',
  'text_muted',
  'accent',
  'accent_alt',
  'success',
  'warning',
  'danger',
  'info',
];

t.test('the palette: twelve colours, defaults merged with the overrides', async (t) => {
  const ta = await testApp(t);
  const initial = await ta.anon({ method: 'GET', url: '/api/theme' });
  t.equal(initial.statusCode, 200, 'anyone reads the palette: the UI applies it at boot');
  t.same(Object.keys(initial.json().palette).sort(), [...colourNames].sort());
  t.same(initial.json(), { palette: defaultPalette, overrides: {} });
  for (const colour of Object.values(initial.json().palette)) t.match(colour, /^#[0-9a-f]{6}$/);

  const put = await ta.asOwner({
    method: 'PUT',
    url: '/api/theme',
    payload: { accent: '#FF8800', text: '#AbC' },
  });
  t.equal(put.statusCode, 200);
  t.same(put.json().overrides, { accent: '#ff8800', text: '#abc' }, '#rrggbb and #rgb, stored lowercase');
  t.same(put.json().palette, { ...defaultPalette, accent: '#ff8800', text: '#abc' });
  const [row] = await ta.sql`select value from app_settings where key = 'theme'`;
  t.same(row.value, { accent: '#ff8800', text: '#abc' }, 'kept under the theme setting');

  const merged = await ta.asOwner({ method: 'POST', url: '/api/theme', payload: { danger: '#f00' } });
  t.equal(merged.statusCode, 200);
  t.same(merged.json().overrides, { accent: '#ff8800', text: '#abc', danger: '#f00' }, 'POST merges');

  const replaced = await ta.asOwner({ method: 'PUT', url: '/api/theme', payload: { info: '#123456' } });
  t.same(replaced.json().overrides, { info: '#123456' }, 'PUT replaces');
  t.same((await ta.anon({ method: 'GET', url: '/api/theme' })).json().palette, {
    ...defaultPalette,
    info: '#123456',
  });

  const reset = await ta.asOwner({ method: 'DELETE', url: '/api/theme' });
  t.equal(reset.statusCode, 200);
  t.same(reset.json(), { palette: defaultPalette, overrides: {} }, 'reset removes the overrides');
  t.same(await ta.sql`select key from app_settings where key = 'theme'`, []);
});

t.test('bad colours and unknown keys are refused, naming the key', async (t) => {
  const ta = await testApp(t);
  await ta.asOwner({ method: 'PUT', url: '/api/theme', payload: { accent: '#abcdef' } });

  for (const bad of ['#abcd', 'abcdef', '#ggg', 'red', '#1234567', ' #fff', 12, null]) {
    for (const method of ['PUT', 'POST'] as const) {
      const response = await ta.asOwner({
        method,
        url: '/api/theme',
        payload: { surface: '#000', warning: bad },
      });
      t.equal(response.statusCode, 400, `${method} warning=${JSON.stringify(bad)}`);
      t.match(response.json().message, /"warning"/, 'the message names the bad key');
    }
  }
  const unknown = await ta.asOwner({
    method: 'POST',
    url: '/api/theme',
    payload: { accent: '#fff', sparkle: '#fff' },
  });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.json().message, /"sparkle"/);

  for (const payload of ['[]', '"#fff"', '12', 'null']) {
    const response = await ta.asOwner({
      method: 'PUT',
      url: '/api/theme',
      payload,
      headers: { 'content-type': 'application/json' },
    });
    t.equal(response.statusCode, 400, `a body of ${payload} is refused`);
  }
  t.same(
    (await ta.anon({ method: 'GET', url: '/api/theme' })).json().overrides,
    { accent: '#abcdef' },
    'nothing refused was stored',
  );
});

t.test('the theme setting is typed: /api/settings/theme refuses what is not a palette', async (t) => {
  const ta = await testApp(t);
  const put = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/theme',
    payload: { value: { accent: '#123', sparkle: '#fff', text: 'red', danger: 7 } },
  });
  t.equal(put.statusCode, 400);
  t.equal(put.json().code, 'SETTING_INVALID');
  const valid = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/theme',
    payload: { value: { accent: '#123' } },
  });
  t.equal(valid.statusCode, 200);
  const theme = await ta.anon({ method: 'GET', url: '/api/theme' });
  t.equal(theme.statusCode, 200);
  t.same(theme.json(), { palette: { ...defaultPalette, accent: '#123' }, overrides: { accent: '#123' } });

  // A value stored before the schema existed reads as the default, never as a broken palette.
  await ta.sql`update app_settings set value = '"not a palette"'::jsonb where key = 'theme'`;
  t.same((await ta.anon({ method: 'GET', url: '/api/theme' })).json(), {
    palette: defaultPalette,
    overrides: {},
  });
  const merged = await ta.asOwner({ method: 'POST', url: '/api/theme', payload: { info: '#000' } });
  t.same(merged.json().overrides, { info: '#000' });
});

t.test('writes are the owner’s', async (t) => {
  const ta = await testApp(t);
  const agent = await createAgent(ta, { tier: 'owner' });
  for (const method of ['PUT', 'POST', 'DELETE'] as const) {
    const payload = method === 'DELETE' ? undefined : { accent: '#fff' };
    t.equal((await ta.anon({ method, url: '/api/theme', payload })).statusCode, 401, `${method} anonymous`);
    t.equal(
      (await ta.asAgent(agent.token, { method, url: '/api/theme', payload })).statusCode,
      403,
      `${method} agent`,
    );
  }
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/theme' })).statusCode, 200);
  t.same(await ta.sql`select key from app_settings`, [], 'nothing was written');
});

t.test(
  'PUT takes back what GET returns, storing only the colours that differ from the defaults',
  async (t) => {
    const ta = await testApp(t);
    await ta.asOwner({ method: 'PUT', url: '/api/theme', payload: { accent: '#ff8800' } });
    const read = (await ta.anon({ method: 'GET', url: '/api/theme' })).json();
    read.palette.danger = '#ABCDEF';
    const put = await ta.asOwner({ method: 'PUT', url: '/api/theme', payload: read });
    t.equal(put.statusCode, 200, 'the round trip is accepted');
    t.same(
      put.json().overrides,
      { accent: '#ff8800', danger: '#abcdef' },
      'the palette decides the overrides',
    );
    const [row] = await ta.sql`select value from app_settings where key = 'theme'`;
    t.same(row.value, { accent: '#ff8800', danger: '#abcdef' }, 'default colours are not stored');

    const unchanged = await ta.asOwner({ method: 'PUT', url: '/api/theme', payload: put.json() });
    t.same(unchanged.json(), put.json(), 'sending it back again changes nothing');
    const flat = await ta.asOwner({ method: 'PUT', url: '/api/theme', payload: { info: '#123' } });
    t.same(flat.json().overrides, { info: '#123' }, 'the flat form still works');
    const bad = await ta.asOwner({
      method: 'PUT',
      url: '/api/theme',
      payload: { palette: { ...defaultPalette, accent: 'blue' }, overrides: {} },
    });
    t.equal(bad.statusCode, 400);
    t.equal(bad.json().code, 'INVALID_COLOUR', 'a bad colour in the palette is named');
  },
);
