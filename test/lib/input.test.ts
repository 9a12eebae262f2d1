// The input boundary (plugins/input.ts, lib/input.ts): what PostgreSQL or JavaScript cannot hold is a 400 naming the
// field on every route, and dates come as a date-time or a plain date. test/fuzz.test.ts sends the same and more to
// every operation; these are the cases a client meets, with the exact answers.
import { createHmac } from 'node:crypto';
import t from 'tap';
import { createSpace, testApp } from '../helpers/app.ts';

const webhookSecret = 'input-test-webhook-secret-0123456789';

t.test('input the database or a Date cannot hold is a 400 naming the field', async (t) => {
  const ta = await testApp(t, { env: { WEBHOOK_SECRET: webhookSecret } });
  const space = await createSpace(ta);
  const refused = async (
    request: Parameters<typeof ta.asOwner>[0],
    code: string,
    message: RegExp,
    what: string,
  ) => {
    const response = await ta.asOwner(request);
    t.equal(response.statusCode, 400, `${what}: 400`);
    t.match(response.json(), { code, message }, `${what}: ${code}`);
  };

  await refused(
    { method: 'GET', url: '/api/search?q=a%00b' },
    'INVALID_TEXT',
    /querystring\/q .*NUL/,
    'NUL in q',
  );
  await refused(
    { method: 'GET', url: '/api/audit?actor=%00' },
    'INVALID_TEXT',
    /querystring\/actor/,
    'NUL in actor',
  );
  await refused(
    { method: 'POST', url: '/api/pages', payload: { space_id: space.id, title: 'a\u0000b' } },
    'INVALID_TEXT',
    /body\/title .*NUL/,
    'NUL in a JSON field',
  );
  await refused(
    { method: 'POST', url: '/api/spaces', payload: { name: 'a\ud800b' } },
    'INVALID_TEXT',
    /body\/name .*unpaired UTF-16 surrogate/,
    'a lone surrogate',
  );
  await refused(
    { method: 'PUT', url: '/api/settings/free', payload: { value: { 'k\u0000': 1 } } },
    'INVALID_TEXT',
    /key of body\/value\/k/,
    'NUL in a key',
  );
  t.equal(
    (await ta.sql`select count(*)::int as n from spaces where name like 'a%b'`)[0].n,
    0,
    'nothing stored',
  );

  for (const url of [
    '/api/pages?offset=99999999999999999999',
    '/api/pages?offset=Infinity',
    `/api/spaces/${space.id}/pages?limit=Infinity`,
    `/api/spaces/${space.id}/pages?offset=1e400`,
    '/api/tasks?offset=-Infinity',
  ]) {
    await refused({ method: 'GET', url }, 'VALIDATION_FAILED', /querystring\/(offset|limit) must be/, url);
  }

  const deep = `{"value":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
  await refused(
    {
      method: 'PUT',
      url: '/api/settings/deep',
      payload: deep,
      headers: { 'content-type': 'application/json' },
    },
    'JSON_TOO_DEEP',
    /^body\/value is nested deeper than 32 levels$/,
    'JSON nested 10,000 deep',
  );
  const shallow = await ta.asOwner({
    method: 'PUT',
    url: '/api/settings/shallow',
    payload: `{"value":${'['.repeat(31)}${']'.repeat(31)}}`,
    headers: { 'content-type': 'application/json' },
  });
  t.equal(shallow.statusCode, 200, '32 levels (the body and 31 below it) are within the limit');

  // The tool protocol's arguments arrive in the same JSON body.
  const mcp = await ta.asOwner({
    method: 'POST',
    url: '/api/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_page', arguments: { space_id: space.id, title: 'x\u0000' } },
    },
  });
  t.equal(mcp.statusCode, 400);
  t.match(mcp.json().message, /body\/params\/arguments\/title .*NUL/, 'a tool argument is named');
});

t.test('dates: a leap second is a 400, a plain date is midnight UTC', async (t) => {
  const ta = await testApp(t);
  const space = await createSpace(ta);
  const project = await ta.asOwner({
    method: 'POST',
    url: '/api/projects',
    payload: { space_id: space.id, name: 'p' },
  });
  const leap = await ta.asOwner({
    method: 'POST',
    url: '/api/tasks',
    payload: { project_id: project.json().id, title: 't', due_at: '2024-12-31T23:59:60Z' },
  });
  t.equal(leap.statusCode, 400, 'a leap second: 400, not a 500 from an invalid Date');
  t.match(leap.json(), { code: 'VALIDATION_FAILED', message: /body\/due_at/ });

  const plain = await ta.asOwner({
    method: 'POST',
    url: '/api/tasks',
    payload: { project_id: project.json().id, title: 't', due_at: '2026-12-05' },
  });
  t.equal(plain.statusCode, 201, 'a plain date is accepted');
  t.equal(plain.json().due_at, '2026-12-05T00:00:00.000Z', 'as midnight UTC');
  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/tasks/${plain.json().id}`,
    payload: { due_at: '2027-01-31T08:30:00+01:00' },
  });
  t.equal(patched.json().due_at, '2027-01-31T07:30:00.000Z', 'a date-time still works');
  const impossible = await ta.asOwner({
    method: 'PATCH',
    url: `/api/tasks/${plain.json().id}`,
    payload: { due_at: '2026-02-30' },
  });
  t.equal(impossible.statusCode, 400, 'a day that does not exist is refused');
});

t.test('malformed multipart and hostile webhook payloads are 400s', async (t) => {
  const ta = await testApp(t, { env: { WEBHOOK_SECRET: webhookSecret } });
  const space = await createSpace(ta);
  const upload = (payload: string, contentType: string) =>
    ta.asOwner({
      method: 'POST',
      url: '/api/capture/upload',
      payload,
      headers: { 'content-type': contentType },
    });
  const part = (name: string, value: string, filename?: string) =>
    `--x\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n` +
    `${filename === undefined ? '' : 'Content-Type: text/plain\r\n'}\r\n${value}\r\n`;
  const form = `${part('space_id', space.id)}${part('file', 'hello', 'a.txt')}--x--\r\n`;

  for (const [what, response] of [
    ['no boundary', await upload(form, 'multipart/form-data')],
    ['another boundary', await upload(form, 'multipart/form-data; boundary=y')],
    ['a truncated body', await upload(form.slice(0, form.length - 20), 'multipart/form-data; boundary=x')],
  ] as const) {
    t.equal(response.statusCode, 400, `${what}: 400`);
    t.equal(response.json().code, 'INVALID_MULTIPART', `${what}: INVALID_MULTIPART`);
  }
  const nulName = await upload(
    `${part('space_id', space.id)}${part('file', 'hello', 'a\u0000.txt')}--x--\r\n`,
    'multipart/form-data; boundary=x',
  );
  t.equal(nulName.statusCode, 400);
  t.match(nulName.json(), { code: 'INVALID_TEXT', message: /file name of multipart field "file"/ });
  t.equal(
    (await upload(form, 'multipart/form-data; boundary=x')).statusCode,
    201,
    'a good upload still works',
  );

  const payload = JSON.stringify({ url: 'https://example.com/', title: 'a\u0000b' });
  const webhook = await ta.anon({
    method: 'POST',
    url: '/api/ingest/generic',
    payload,
    headers: {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${createHmac('sha256', webhookSecret).update(payload).digest('hex')}`,
    },
  });
  t.equal(webhook.statusCode, 400);
  t.match(webhook.json(), { code: 'INVALID_TEXT', message: /body\/title/ });
});
