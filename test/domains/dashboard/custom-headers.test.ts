// A custom card's headers may hold tokens: stored sealed under the hub's key, answered as `{ set: true }`, kept when a
// layout is saved again without them, removed by null, sent to the card's upstream, and re-sealed by
// `npm run rotate-secret-key` (run as the real program) with every other secret.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { checkSecretKey, SecretKeyError } from '../../../domains/integrations/keyring.ts';
import { newSecretKey, parseSecretKey } from '../../../lib/secrets.ts';
import { hub } from '../../../modules.ts';
import { testApp } from '../../helpers/app.ts';
import { processes } from '../../helpers/process.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const secret = 'k3y-0123456789-never-shown';
const upstream = await startUpstream(t, (request, response) => {
  if (request.headers['x-api-key'] !== secret)
    return void response.writeHead(401).end('{"message":"no key"}');
  response.writeHead(200, { 'content-type': 'application/json' }).end('{"version":"2.1.0"}');
});
const ta = await testApp(t);
const fields = [{ label: 'Version', pointer: '/version' }];
const layout = (headers?: Record<string, unknown>, interval = 30) => ({
  mode: 'snap',
  cards: [
    {
      id: 'stats',
      type: 'custom',
      size: 4,
      config: { url: `${upstream.url}/stats`, interval_s: interval, fields, ...(headers ? { headers } : {}) },
    },
  ],
});
const save = (body: object) => ta.asOwner({ method: 'PUT', url: '/api/dashboard/layout', payload: body });
// Each read asks for another interval, so no answer comes from the card's cache.
let interval = 30;
const readCard = () =>
  ta.asOwner({
    method: 'POST',
    url: '/api/dashboard/custom',
    payload: { card_id: 'stats', url: `${upstream.url}/stats`, interval_s: ++interval, fields },
  });
const stored = async () =>
  (await ta.sql<{ layout: string }[]>`select layout::text from dashboard_layouts`)[0].layout;

t.test('sealed at rest, never answered, sent to the upstream', async (t) => {
  const saved = await save(layout({ 'X-Api-Key': secret }));
  t.equal(saved.statusCode, 200, saved.body);
  t.notOk(saved.body.includes(secret), 'the answer to the save does not carry it');
  t.same(saved.json().cards[0].config.headers, { 'X-Api-Key': { set: true } });
  const read = await ta.asOwner({ method: 'GET', url: '/api/dashboard/layout' });
  t.notOk(read.body.includes(secret), 'nor does a read of the layout');
  t.same(read.json().cards[0].config.headers, { 'X-Api-Key': { set: true } });
  t.notOk((await stored()).includes(secret), 'the table holds no plaintext');
  t.match(await stored(), /"X-Api-Key"/);

  const card = await readCard();
  t.equal(card.statusCode, 200, card.body);
  t.match(card.json(), { ok: true }, 'the card reached its upstream with the header');
  t.equal(upstream.requests.at(-1)?.headers['x-api-key'], secret);
});

t.test('saved again as answered it keeps the header; null removes it', async (t) => {
  const before = await stored();
  const again = await save(layout({ 'X-Api-Key': { set: true } }));
  t.equal(again.statusCode, 200, again.body);
  t.match((await readCard()).json(), { ok: true }, 'kept when given as { set: true }');
  const without = await save(layout());
  t.equal(without.statusCode, 200, without.body);
  t.match((await readCard()).json(), { ok: true }, 'kept when left out');
  t.not(await stored(), '', 'still stored');
  t.match(before, /X-Api-Key/);
  const cleared = await save(layout({ 'X-Api-Key': null }));
  t.equal(cleared.statusCode, 200, cleared.body);
  t.notOk((await stored()).includes('X-Api-Key'), 'null removes it');
  t.match((await readCard()).json(), { ok: false }, 'the upstream now refuses the card');
  t.equal(upstream.requests.at(-1)?.headers['x-api-key'], undefined);
});

t.test('the start-up key check and rotate-secret-key cover the headers', async (t) => {
  t.equal((await save(layout({ 'X-Api-Key': secret }))).statusCode, 200);
  const wrong = await checkSecretKey(
    ta.sql,
    { dataDir: ta.dataDir, secretKey: newSecretKey() },
    hub.sealed,
  ).catch((error) => error);
  t.type(wrong, SecretKeyError);
  t.match(wrong.message, /custom_header:stats:X-Api-Key/);
  const sealedBefore = await stored();
  const procs = processes(t);
  const rotation = procs.spawn('scripts/rotate-secret-key.ts', {
    DATABASE_URL: ta.db.url,
    DATA_DIR: ta.dataDir,
  });
  t.equal((await rotation.exited).code, 0, rotation.output());
  t.match(rotation.stdout(), /re-encrypted 1 secret\(s\) under a new key/);
  t.not(await stored(), sealedBefore, 're-sealed');
  const next = parseSecretKey(await readFile(path.join(ta.dataDir, 'secret.key'), 'utf8')) as Buffer;
  t.ok(
    await checkSecretKey(ta.sql, { dataDir: ta.dataDir, secretKey: next }, hub.sealed),
    'the new key opens them',
  );
});
