import t from 'tap';
import { hub } from '../../modules.ts';
import { createAgent, testApp } from '../helpers/app.ts';

t.test('the owner keeps settings by key', async (t) => {
  const ta = await testApp(t);
  t.same((await ta.asOwner({ method: 'GET', url: '/api/settings' })).json(), { items: [] });

  const schedule = { cron: '0 * * * *', alert_below_mbps: 50 };
  const put = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/speedtest.schedule',
    payload: { value: schedule },
  });
  t.equal(put.statusCode, 200);
  t.match(put.json(), { key: 'speedtest.schedule', value: schedule, updated_at: /^\d{4}-\d\d-\d\dT/ });
  const [row] = await ta.sql`select value from app_settings where key = 'speedtest.schedule'`;
  t.same(row.value, schedule, 'stored in app_settings');

  for (const value of [true, 0, 'on', [1, 'two'], null]) {
    await ta.asOwner({ method: 'PUT', url: '/api/settings/voice.retain_clips', payload: { value } });
    const read = await ta.asOwner({ method: 'GET', url: '/api/settings/voice.retain_clips' });
    t.same(read.json(), { key: 'voice.retain_clips', value }, `a ${JSON.stringify(value)} value round-trips`);
  }

  const list = await ta.asOwner({ method: 'GET', url: '/api/settings' });
  t.same(
    list.json().items.map((item: { key: string }) => item.key),
    ['speedtest.schedule', 'voice.retain_clips'],
  );

  t.equal((await ta.asOwner({ method: 'DELETE', url: '/api/settings/speedtest.schedule' })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/settings/speedtest.schedule' })).statusCode, 404);
  const again = await ta.asOwner({ method: 'DELETE', url: '/api/settings/speedtest.schedule' });
  t.equal(again.statusCode, 404);
  t.match(again.json(), {
    statusCode: 404,
    code: String,
    error: 'Not Found',
    message: /speedtest\.schedule/,
  });
});

t.test('bad keys and bodies are refused', async (t) => {
  const ta = await testApp(t);
  for (const key of ['Theme', 'has%20space', '9lives', 'semi;colon', '-dash']) {
    const response = await ta.asOwner({ method: 'PUT', url: `/api/settings/${key}`, payload: { value: 1 } });
    t.equal(response.statusCode, 400, `key ${key}`);
    t.equal((await ta.asOwner({ method: 'GET', url: `/api/settings/${key}` })).statusCode, 400);
  }
  const longest = `k${'x'.repeat(99)}`;
  t.equal(
    (await ta.asOwner({ method: 'PUT', url: `/api/settings/${longest}`, payload: { value: 1 } })).statusCode,
    200,
  );
  const tooLong = await ta.asOwner({
    method: 'PUT',
    url: `/api/settings/${longest}x`,
    payload: { value: 1 },
  });
  t.ok(
    tooLong.statusCode >= 400 && tooLong.statusCode < 500,
    `a 101-character key is refused (${tooLong.statusCode})`,
  );
  await ta.asOwner({ method: 'DELETE', url: `/api/settings/${longest}` });
  const noValue = await ta.asOwner({ method: 'PUT', url: '/api/settings/a', payload: {} });
  t.equal(noValue.statusCode, 400, 'value is required');
  const extra = await ta.asOwner({ method: 'PUT', url: '/api/settings/a', payload: { value: 1, other: 2 } });
  t.equal(extra.statusCode, 400, 'unknown fields are refused');
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/settings/never.set' })).statusCode, 404);
  t.same(await ta.sql`select key from app_settings`, []);
});

t.test('settings are the owner’s alone', async (t) => {
  const ta = await testApp(t);
  await ta.asOwner({ method: 'PUT', url: '/api/settings/a', payload: { value: 1 } });
  const agent = await createAgent(ta, { tier: 'owner' });
  const requests = [
    { method: 'GET', url: '/api/settings' },
    { method: 'GET', url: '/api/settings/a' },
    { method: 'PUT', url: '/api/settings/a', payload: { value: 2 } },
    { method: 'DELETE', url: '/api/settings/a' },
  ] as const;
  for (const request of requests) {
    t.equal((await ta.anon(request)).statusCode, 401, `${request.method} ${request.url} anonymous`);
    t.equal(
      (await ta.asAgent(agent.token, request)).statusCode,
      403,
      `${request.method} ${request.url} agent`,
    );
  }
  t.same((await ta.asOwner({ method: 'GET', url: '/api/settings/a' })).json().value, 1, 'unchanged');
});

/** Every object schema inside `schema` that leaves additionalProperties open, by path. */
function openObjects(schema: unknown, path: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Record<string, unknown>;
  const own = node.type === 'object' && node.additionalProperties !== false ? [path] : [];
  const children = Object.entries(node).flatMap(([key, value]) => {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      return Object.entries(value).flatMap(([name, child]) => openObjects(child, `${path}.${name}`));
    }
    if (Array.isArray(value)) return value.flatMap((child) => openObjects(child, path));
    return ['items', 'not'].includes(key) ? openObjects(value, path) : [];
  });
  return [...own, ...children];
}

t.test('typed settings are closed: an unknown key is refused by name, never stored', async (t) => {
  const ta = await testApp(t);
  const glowstick = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/theme',
    payload: { value: { glowstick: '#abcdef' } },
  });
  t.equal(glowstick.statusCode, 400);
  t.equal(glowstick.json().code, 'SETTING_INVALID');
  t.match(glowstick.json().message, /unknown key "glowstick"/);

  for (const definition of hub.settings.values()) {
    t.same(openObjects(definition.schema, definition.key), [], `${definition.key}: every object is closed`);
    const value = definition.defaultValue();
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const response = await ta.asOwner({
      method: 'PUT',
      url: `/api/settings/${definition.key}`,
      payload: { value: { ...value, glowstick: 1 } },
    });
    t.equal(response.statusCode, 400, `${definition.key}: 400`);
    t.match(response.json().message, /"glowstick"/, `${definition.key}: the key is named`);
  }
  t.same(await ta.sql`select key from app_settings where value ? 'glowstick'`, [], 'nothing stored');
});
