// The integrations API against fake upstreams on loopback shaped like the real ones: each kind saved after a passing
// test, refused after a failing one (a wrong token, an unreachable port, a certificate not trusted) with nothing
// stored, then used by its card or job at once; the environment wins; secrets are write-only and never stored,
// answered or logged in the clear.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { JobHelpers } from 'graphile-worker';
import t from 'tap';
import { captureTasks } from '../../../domains/capture/jobs.ts';
import { linkdingCron } from '../../../domains/capture/linkding.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { multipart } from '../../helpers/multipart.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import {
  closedPort,
  fakeOpenMeteo,
  fakeProxmox,
  fakeShlink,
  json,
  pveToken,
  shlinkKey,
} from '../dashboard/fakes.ts';

const [pveTokenId, pveSecret] = pveToken.split('=');
const linkdingToken = 'linkding-api-token-4f1e2d3c';
const sttKey = 'sk-stt-0123456789abcdef';
const assistantKey = 'sk-chat-0123456789abcdef';
const webhookSecret = 'karakeep-webhook-secret-0123456789';
const allSecrets = [pveSecret, shlinkKey, linkdingToken, sttKey, assistantKey, webhookSecret];

const ta = await testApp(t, { env: { UPSTREAM_TIMEOUT_MS: '3000' } });
const put = (kind: string, payload: unknown, query = '') =>
  ta.asOwner({ method: 'PUT', url: `/api/integrations/${kind}${query}`, payload: payload as object });
const stored = async () => (await ta.sql`select kind from integrations order by kind`).map((row) => row.kind);
const entryOf = async (kind: string) =>
  (await ta.asOwner({ method: 'GET', url: '/api/integrations' }))
    .json()
    .items.find((item: { kind: string }) => item.kind === kind);
/** Every response the test saw, to check that none of them ever carried a secret. */
const bodies: string[] = [];
const seen = <T extends { body: string }>(response: T): T => {
  bodies.push(response.body);
  return response;
};

t.test('owner only: agents are refused, nobody is asked to sign in', async (t) => {
  const agent = await createAgent(ta, { tier: 'owner' });
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/integrations' })).statusCode, 403);
  t.equal((await ta.anon({ method: 'GET', url: '/api/integrations' })).statusCode, 401);
  const list = seen(await ta.asOwner({ method: 'GET', url: '/api/integrations' }));
  t.same(
    list.json().items.map((item: { kind: string }) => item.kind),
    ['weather', 'proxmox', 'shlink', 'stt', 'assistant', 'linkding', 'karakeep', 'docker'],
  );
  t.match(list.json().items[1], {
    configured: false,
    source: null,
    fields: { token_secret: { set: false } },
  });
});

t.test(
  'Proxmox: a wrong token, a closed port and an untrusted certificate are refused; then the cards fill in',
  async (t) => {
    const pve = await fakeProxmox(t);
    t.equal(
      (await ta.asOwner({ method: 'GET', url: '/api/cluster' })).body,
      '{"configured":false}',
      'not configured yet',
    );
    const wrong = seen(
      await put('proxmox', { url: pve.url, token_id: pveTokenId, token_secret: 'not-the-secret' }),
    );
    t.equal(wrong.statusCode, 422);
    t.match(wrong.json(), { code: 'INTEGRATION_TEST_FAILED', test: { ok: false, status: 401 } });
    t.match(wrong.json().message, /nothing was saved.*refused the API token/);
    const closed = seen(
      await put('proxmox', {
        url: `http://127.0.0.1:${await closedPort()}`,
        token_id: pveTokenId,
        token_secret: pveSecret,
      }),
    );
    t.equal(closed.statusCode, 422);
    t.match(closed.json(), { test: { ok: false, status: null, message: /connection refused/ } });

    const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-integrations-tls-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const server = https.createServer(
      { key: await readFile(key), cert: await readFile(cert) },
      (_request, response) =>
        json(response, 200, { data: { version: '8.3.0', release: '8.3', repoid: 'abc' } }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const tlsUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const untrusted = seen(
      await put('proxmox', { url: tlsUrl, token_id: pveTokenId, token_secret: pveSecret }),
    );
    t.equal(untrusted.statusCode, 422);
    t.match(untrusted.json().test.message, /certificate/i);
    const trusted = seen(
      await ta.asOwner({
        method: 'POST',
        url: '/api/integrations/proxmox/test',
        payload: {
          url: tlsUrl,
          token_id: pveTokenId,
          token_secret: pveSecret,
          ca_certificate: await readFile(cert, 'utf8'),
        },
      }),
    );
    t.match(
      trusted.json(),
      { ok: true, status: 200, message: /Proxmox VE 8\.3\.0/ },
      'the given CA certificate is trusted',
    );
    t.same(await stored(), [], 'nothing was stored by the failures or the test');

    const saved = seen(await put('proxmox', { url: pve.url, token_id: pveTokenId, token_secret: pveSecret }));
    t.equal(saved.statusCode, 200, saved.body);
    t.match(saved.json(), {
      kind: 'proxmox',
      configured: true,
      source: 'settings',
      fields: { url: pve.url, token_id: pveTokenId, token_secret: { set: true } },
      last_test: { ok: true, status: 200 },
    });
    t.ok(pve.calls('/version') >= 1, 'the upstream was tried once before saving');
    const cluster = seen(await ta.asOwner({ method: 'GET', url: '/api/cluster' }));
    t.equal(cluster.statusCode, 200);
    t.match(cluster.json(), { nodes: [{ name: 'pve1' }] }, 'the card uses it without a restart');
    t.equal(pve.requests.at(-1)?.headers.authorization, `PVEAPIToken=${pveToken}`);
  },
);

t.test(
  'Shlink: its 401 problem+json is refused; a kept secret is reused; null clears a required one',
  async (t) => {
    const shlink = await fakeShlink(t);
    const wrong = seen(await put('shlink', { url: shlink.url, api_key: 'wrong-key' }));
    t.equal(wrong.statusCode, 422);
    t.match(wrong.json(), {
      code: 'INTEGRATION_TEST_FAILED',
      test: { ok: false, status: 401, message: /Invalid API key/ },
    });
    t.equal((await ta.asOwner({ method: 'GET', url: '/api/shlink/recent' })).json().configured, false);

    t.equal(seen(await put('shlink', { url: shlink.url, api_key: shlinkKey })).statusCode, 200);
    const recent = seen(await ta.asOwner({ method: 'GET', url: '/api/shlink/recent' }));
    t.match(recent.json(), { configured: true, items: [{ short_code: 'abc12' }] }, 'used at once');

    const kept = seen(await put('shlink', { url: `${shlink.url}/` }));
    t.equal(kept.statusCode, 200, 'the stored key is kept and passes the test again');
    t.match(kept.json().fields, { api_key: { set: true } });
    const cleared = seen(await put('shlink', { url: shlink.url, api_key: null }));
    t.equal(cleared.statusCode, 400);
    t.match(cleared.json(), { code: 'VALIDATION_FAILED', message: /needs api_key/ });
  },
);

t.test(
  'Weather: an Open-Meteo error or a closed port is refused; then the card shows the saved place',
  async (t) => {
    const meteo = await fakeOpenMeteo(t);
    meteo.mode = 'error';
    const failing = seen(
      await put('weather', { latitude: 52.52, longitude: 13.41, url: meteo.url, label: 'Berlin' }),
    );
    t.equal(failing.statusCode, 422);
    t.match(failing.json().test, { ok: false, status: 400, message: /Cannot initialize/ });
    const closed = seen(
      await put('weather', {
        latitude: 52.52,
        longitude: 13.41,
        url: `http://127.0.0.1:${await closedPort()}`,
      }),
    );
    t.match(closed.json(), { statusCode: 422, test: { status: null, message: /connection refused/ } });
    t.equal((await ta.asOwner({ method: 'GET', url: '/api/weather' })).body, '{"configured":false}');

    meteo.mode = 'ok';
    const bad = seen(await put('weather', { latitude: 95, longitude: 13.41 }));
    t.equal(bad.statusCode, 400, 'validated by the kind schema');
    const zone = seen(await put('weather', { latitude: 52.52, longitude: 13.41, timezone: 'Mars/Olympus' }));
    t.match(zone.json(), { statusCode: 400, message: /IANA time zone/ });
    const saved = seen(
      await put('weather', {
        latitude: 52.52,
        longitude: 13.41,
        url: meteo.url,
        label: 'Berlin',
        units: 'metric',
      }),
    );
    t.equal(saved.statusCode, 200, saved.body);
    const card = seen(await ta.asOwner({ method: 'GET', url: '/api/weather' }));
    t.equal(card.statusCode, 200, card.body);
    t.match(card.json(), { latitude: 52.52, label: 'Berlin' });
  },
);

t.test('?test=false stores without trying the upstream; DELETE removes it', async (t) => {
  const port = await closedPort();
  const saved = seen(
    await put('linkding', { url: `http://127.0.0.1:${port}`, token: linkdingToken }, '?test=false'),
  );
  t.equal(saved.statusCode, 200);
  t.equal(saved.json().last_test, null);
  const tested = seen(await ta.asOwner({ method: 'POST', url: '/api/integrations/linkding/test' }));
  t.match(tested.json(), { ok: false, status: null, message: /connection refused/ });
  t.match(
    (await entryOf('linkding')).last_test,
    { ok: false },
    'the test of the stored settings is recorded',
  );
  t.equal((await ta.asOwner({ method: 'DELETE', url: '/api/integrations/linkding' })).statusCode, 204);
  t.equal((await entryOf('linkding')).configured, false);
  const again = await ta.asOwner({ method: 'DELETE', url: '/api/integrations/linkding' });
  t.match(again.json(), { statusCode: 404, code: 'INTEGRATION_NOT_CONFIGURED' });
  const untested = await ta.asOwner({ method: 'POST', url: '/api/integrations/linkding/test' });
  t.match(untested.json(), { statusCode: 404, code: 'INTEGRATION_NOT_CONFIGURED' });
});

t.test('linkding: a wrong token is refused; then the sync job pulls with the saved one', async (t) => {
  const linkding = await startUpstream(t, (request, response) => {
    if (request.headers.authorization !== `Token ${linkdingToken}`)
      return json(response, 401, { detail: 'Invalid token.' });
    json(response, 200, {
      count: 1,
      next: null,
      previous: null,
      results: [
        {
          id: 7,
          url: 'https://example.org/from-linkding',
          title: 'From linkding',
          website_title: null,
          tag_names: [],
          date_added: '2026-01-01T10:00:00.000000Z',
          date_modified: '2026-01-01T10:00:00.000000Z',
        },
      ],
    });
  });
  const wrong = seen(await put('linkding', { url: linkding.url, token: 'wrong-token' }));
  t.match(wrong.json(), { statusCode: 422, test: { status: 401, message: /Invalid token/ } });
  const [cron] = linkdingCron({ sql: ta.sql, config: ta.config });
  const schedule = cron.schedule as (deps: object) => Promise<string | null>;
  t.equal(await schedule({ sql: ta.sql, config: ta.config }), null, 'no recurring pull while unconfigured');

  t.equal(
    seen(await put('linkding', { url: linkding.url, token: linkdingToken, schedule: '*/5 * * * *' }))
      .statusCode,
    200,
  );
  t.equal(await schedule({ sql: ta.sql, config: ta.config }), '*/5 * * * *', 'its schedule applies at once');
  const sync = captureTasks
    .find((entry) => entry.task.name === 'linkding.sync')
    ?.executor({ sql: ta.sql, config: ta.config });
  const quiet = { info: () => undefined, warn: () => undefined };
  await sync?.({}, { logger: quiet } as unknown as JobHelpers);
  const [capture] = await ta.sql`select url from captures where url = 'https://example.org/from-linkding'`;
  t.ok(capture, 'the job pulled the bookmark with the stored token');
});

t.test('speech to text: a refused key is refused; then transcription uses the saved server', async (t) => {
  const stt = await startUpstream(t, (request, response) => {
    if (request.headers.authorization !== `Bearer ${sttKey}`) {
      return json(response, 401, {
        error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
      });
    }
    json(response, 200, { text: ' Lights on. ' });
  });
  const wrong = seen(await put('stt', { provider: 'openai', url: stt.url, api_key: 'sk-wrong' }));
  t.match(wrong.json(), { statusCode: 422, test: { status: 401, message: /Incorrect API key/ } });
  t.equal(seen(await put('stt', { provider: 'openai', url: stt.url, api_key: sttKey })).statusCode, 200);
  const wav = Buffer.concat([
    Buffer.from('RIFF'),
    Buffer.alloc(4),
    Buffer.from('WAVEfmt '),
    Buffer.alloc(2000),
  ]);
  const body = multipart([{ name: 'file', value: wav, filename: 'clip.wav', type: 'audio/wav' }]);
  const transcribed = seen(await ta.asOwner({ method: 'POST', url: '/api/voice/transcribe', ...body }));
  t.equal(transcribed.statusCode, 200, transcribed.body);
  t.match(transcribed.json(), { text: 'Lights on.' });
  t.equal(stt.requests.at(-1)?.url, '/v1/audio/transcriptions');
});

t.test("the assistant's endpoint: its model list is the test", async (t) => {
  const chat = await startUpstream(t, (request, response) => {
    if (request.headers.authorization !== `Bearer ${assistantKey}`) {
      return json(response, 401, { error: { message: 'Invalid API key', code: 'invalid_api_key' } });
    }
    if (request.url !== '/v1/models') return json(response, 404, { error: { message: 'not found' } });
    json(response, 200, { object: 'list', data: [{ id: 'qwen2.5-7b-instruct', object: 'model' }] });
  });
  const wrong = seen(
    await put('assistant', { url: `${chat.url}/v1`, model: 'qwen2.5-7b-instruct', api_key: 'bad' }),
  );
  t.match(wrong.json(), { statusCode: 422, test: { status: 401 } });
  const saved = seen(
    await put('assistant', { url: `${chat.url}/v1`, model: 'qwen2.5-7b-instruct', api_key: assistantKey }),
  );
  t.match(saved.json(), {
    source: 'settings',
    last_test: { ok: true, message: /serves qwen2\.5-7b-instruct/ },
  });
});

t.test('Karakeep: the webhook takes the saved secret at once', async (t) => {
  const deliver = () =>
    ta.anon({
      method: 'POST',
      url: '/api/ingest/karakeep',
      payload: JSON.stringify({
        jobId: '9',
        bookmarkId: 'b9',
        userId: 'u',
        url: 'https://example.org/kk',
        type: 'link',
        operation: 'created',
      }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${webhookSecret}` },
    });
  t.equal((await deliver()).statusCode, 503, 'off while no secret is set');
  t.equal(seen(await put('karakeep', { webhook_secret: webhookSecret })).statusCode, 200);
  t.equal((await deliver()).statusCode, 202);
});

t.test('no secret in the clear: not in the table, not in any answer', async (t) => {
  const rows = await ta.sql<{ text: string }[]>`select row_to_json(i)::text as text from integrations i`;
  t.ok(rows.length >= 5);
  for (const secret of allSecrets) {
    t.notOk(
      rows.some((row) => row.text.includes(secret)),
      `the table holds no ${secret.slice(0, 6)}…`,
    );
    t.notOk(
      bodies.some((body) => body.includes(secret)),
      `no answer carried ${secret.slice(0, 6)}…`,
    );
  }
  const list = await ta.asOwner({ method: 'GET', url: '/api/integrations' });
  for (const secret of allSecrets) t.notOk(list.body.includes(secret));
});

t.test('a sealed value moved to another field is refused, never used or shown', async (t) => {
  const shlink = await fakeShlink(t);
  t.equal((await put('shlink', { url: shlink.url, api_key: shlinkKey })).statusCode, 200);
  // Someone with the database moves Shlink's sealed key into the Proxmox token's place.
  await ta.sql`
    update integrations set secrets = jsonb_build_object('token_secret',
      (select secrets->'api_key' from integrations where kind = 'shlink'))
    where kind = 'proxmox'`;
  const tested = await ta.asOwner({ method: 'POST', url: '/api/integrations/proxmox/test' });
  t.equal(tested.statusCode, 500);
  t.match(tested.json(), {
    code: 'INTEGRATION_SECRET_UNREADABLE',
    message: /proxmox secret "token_secret" cannot be decrypted/,
  });
  t.notOk(tested.body.includes(shlinkKey));
  const card = await ta.asOwner({ method: 'GET', url: '/api/cluster' });
  t.equal(card.json().code, 'INTEGRATION_SECRET_UNREADABLE');
  t.notOk(card.body.includes(shlinkKey));
});

t.test('the environment wins: shown read-only, a PUT is 409 naming the variable', async (t) => {
  const shlink = await fakeShlink(t);
  const env = await testApp(t, {
    env: { SHLINK_URL: shlink.url, SHLINK_API_KEY: shlinkKey, WEBHOOK_SECRET: webhookSecret },
  });
  const list = await env.asOwner({ method: 'GET', url: '/api/integrations' });
  const entry = list.json().items.find((item: { kind: string }) => item.kind === 'shlink');
  t.match(entry, {
    configured: true,
    source: 'environment',
    fields: { url: shlink.url, api_key: { set: true } },
  });
  t.ok(entry.variables.includes('SHLINK_API_KEY'));
  t.notOk(list.body.includes(shlinkKey));
  t.notOk(list.body.includes(webhookSecret));
  const refused = await env.asOwner({
    method: 'PUT',
    url: '/api/integrations/shlink',
    payload: { url: shlink.url, api_key: 'x' },
  });
  t.equal(refused.statusCode, 409);
  t.match(refused.json(), { code: 'SET_BY_ENVIRONMENT', message: /SHLINK_URL and SHLINK_API_KEY/ });
  const tested = await env.asOwner({ method: 'POST', url: '/api/integrations/shlink/test' });
  t.match(tested.json(), { ok: true, status: 200 });
});
