// Every list route takes `limit` and `offset`, and refuses values beyond range with a 400 naming the parameter.
// The routes are read from the OpenAPI document (every GET with a `limit`), so a list added later is held to it too.
import t from 'tap';
import { createSpace, testApp } from './helpers/app.ts';
import { servedOpenApi } from './helpers/openapi.ts';

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
}
interface Document {
  paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
}

// Beyond range for either: not numbers JavaScript holds (1e400, Infinity, NaN), past 64 bits, negative, fractional.
const hostile = [
  '1e20',
  'Infinity',
  '-Infinity',
  'NaN',
  '1e400',
  '18446744073709551616',
  '99999999999999999999',
  '9007199254740992',
  '-1',
  '1.5',
  'ten',
  '',
];

t.test('offset and limit beyond range are a 400 naming the parameter, on every list route', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const doc = await servedOpenApi<Document>(ta);
  const lists = Object.entries(doc.paths)
    .filter(([, methods]) => methods.get?.parameters?.some((p) => p.in === 'query' && p.name === 'limit'))
    .map(([path, methods]) => ({ path, parameters: methods.get?.parameters ?? [] }));
  t.ok(lists.length >= 25, `${lists.length} list routes read from the document`);

  const problems: string[] = [];
  for (const { path, parameters } of lists) {
    const names = parameters.filter((p) => p.in === 'query').map((p) => p.name);
    if (!names.includes('offset')) problems.push(`${path} takes limit but no offset`);
    // Required parameters other than these get a plain value, so the refusal can only be about limit or offset.
    const required = parameters
      .filter((p) => p.in === 'query' && p.required && p.name !== 'limit' && p.name !== 'offset')
      .map((p) => `${p.name}=x&`)
      .join('');
    const base = path.replace(/\{[^}]+\}/g, space.id);
    for (const name of ['limit', 'offset']) {
      for (const value of hostile) {
        const url = `${base}?${required}${name}=${encodeURIComponent(value)}`;
        const response = await ta.asOwner({ method: 'GET', url });
        if (response.statusCode !== 400) {
          problems.push(`${url} answered ${response.statusCode}`);
          continue;
        }
        const body = response.json() as { code?: string; message?: string };
        if (body.code !== 'VALIDATION_FAILED' || !body.message?.includes(`querystring/${name}`)) {
          problems.push(`${url}: ${body.code} "${body.message}" does not name querystring/${name}`);
        }
      }
    }
  }
  t.same(problems, [], 'every list route refuses them by name');
});

t.test('an offset in range pages through the lists that gained one', async (t) => {
  const ta = await testApp(t);
  for (const [mbps, at] of [
    [100, '2026-12-01T10:00:00Z'],
    [200, '2026-12-02T10:00:00Z'],
    [300, '2026-12-03T10:00:00Z'],
  ] as const) {
    await ta.sql`
      insert into speedtest_results (trigger, measured_at, status, download_mbps, upload_mbps, ping_ms)
      values ('manual', ${at}, 'ok', ${mbps}, 10, 5)`;
  }
  const page = await ta.asOwner({ method: 'GET', url: '/api/speedtest/history?limit=1&offset=1' });
  t.equal(page.statusCode, 200, page.body);
  t.same(
    page.json().items.map((item: { download_mbps: number }) => item.download_mbps),
    [200],
    'newest first, one skipped',
  );
  t.equal(page.json().summary.count, 3, 'the summary covers the whole range');
  const csv = await ta.asOwner({ method: 'GET', url: '/api/speedtest/history.csv?limit=1&offset=2' });
  t.equal(csv.statusCode, 200);
  t.equal(csv.body.trim().split('\n').length, 2, 'a header and the oldest result');
  t.match(csv.body, /,100(\.0+)?,/);
});
