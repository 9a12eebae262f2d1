// The dashboard layout: defaults, sizes (legacy s/m/l), per-type config, snap packing, free-mode overlaps, per-owner
// layouts for access-proxy emails, and ETag / If-Match.
import { generateKeyPairSync, sign } from 'node:crypto';
import t from 'tap';
import { createAgent, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';

const team = 'ops-team.cloudflareaccess.com';
const audience = 'dashboard-audience';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };
const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function accessToken(email: string): string {
  const now = Math.floor(Date.now() / 1000);
  const input = `${segment({ alg: 'RS256', kid: 'k1', typ: 'JWT' })}.${segment({
    aud: [audience],
    email,
    iss: `https://${team}`,
    iat: now,
    nbf: now,
    exp: now + 600,
  })}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

const keys = await startUpstream(t, (_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ keys: [jwk] }));
});
const ta = await testApp(t, {
  env: {
    ACCESS_TEAM_DOMAIN: team,
    ACCESS_AUDIENCE: audience,
    OWNER_EMAILS: 'alice@example.com,bob@example.com',
    ACCESS_CERTS_URL: `${keys.url}/cdn-cgi/access/certs`,
  },
});
const asEmail = (
  email: string,
  request: { method: 'GET' | 'PUT'; payload?: object; headers?: Record<string, string> },
) =>
  ta.anon({
    url: '/api/dashboard/layout',
    ...request,
    headers: { 'cf-access-jwt-assertion': accessToken(email), ...request.headers },
  });
const put = (payload: object, headers: Record<string, string> = {}) =>
  ta.asOwner({ method: 'PUT', url: '/api/dashboard/layout', payload, headers });
const get = () => ta.asOwner({ method: 'GET', url: '/api/dashboard/layout' });

t.test(
  'with nothing saved, the default: clock and weather at span 2, then the other cards, packed',
  async (t) => {
    const response = await get();
    t.equal(response.statusCode, 200);
    const layout = response.json();
    t.equal(layout.mode, 'snap');
    t.same(
      layout.cards.map((card: { type: string }) => card.type),
      ['clock', 'weather', 'host', 'health', 'speedtest', 'storage', 'backups'],
    );
    t.match(layout.cards[0], { size: 2, w: 2, x: 0, y: 0 });
    t.match(layout.cards[1], { size: 2, w: 2, x: 2, y: 0 });
    t.match(layout.cards[2], { x: 4, y: 0 });
    t.ok(response.headers.etag, 'an ETag');
  },
);

t.test('owner only: an agent is refused, nobody is 401', async (t) => {
  const agent = await createAgent(ta, { tier: 'owner' });
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/dashboard/layout' })).statusCode, 403);
  t.equal((await ta.anon({ method: 'GET', url: '/api/dashboard/layout' })).statusCode, 401);
});

t.test('sizes: integers 1 to 12, legacy s/m/l stored as 3/6/12; bad ones name the card', async (t) => {
  const saved = await put({
    mode: 'snap',
    cards: [
      { id: 'a', type: 'clock', size: 's' },
      { id: 'b', type: 'weather', size: 'm' },
      { id: 'c', type: 'host', size: 'l' },
      { id: 'd', type: 'blank', size: 1 },
      { id: 'e', type: 'flame', size: 12, config: { intensity: 0.5 } },
    ],
  });
  t.equal(saved.statusCode, 200, saved.body);
  const cards = saved.json().cards;
  t.same(
    cards.map((card: { size: number }) => card.size),
    [3, 6, 12, 1, 12],
  );
  // Packed left to right, top to bottom: a (0,0) b (3,0); c does not fit on row 0; d after c's row; e next row.
  t.same(
    cards.map((card: { x: number; y: number }) => [card.x, card.y]),
    [
      [0, 0],
      [3, 0],
      [0, 2],
      [0, 4],
      [0, 6],
    ],
  );
  t.same((await get()).json().cards, cards, 'later reads carry the computed positions, extras included');

  for (const [size, shown] of [
    [0, '0'],
    [13, '13'],
    [2.5, '2.5'],
    ['xl', '"xl"'],
  ] as const) {
    const bad = await put({
      mode: 'snap',
      cards: [
        { id: 'ok', type: 'clock', size: 2 },
        { id: 'bad-one', type: 'clock', size },
      ],
    });
    t.equal(bad.statusCode, 400, `size ${shown}`);
    t.equal(bad.json().code, 'LAYOUT_INVALID');
    t.match(bad.json().message, /card "bad-one".*size/);
    t.match(bad.json().message, shown);
  }
  const unknown = await put({ mode: 'snap', cards: [{ id: 'mystery', type: 'radar', size: 2 }] });
  t.equal(unknown.statusCode, 400);
  t.match(unknown.json().message, /card "mystery": unknown type "radar"/);
});

t.test('config is checked per type; ids are unique; at most 100 cards', async (t) => {
  const good = await put({
    mode: 'snap',
    cards: [
      { id: 'c', type: 'clock', size: 2, config: { timezone: 'Europe/Berlin', hour12: false } },
      { id: 'w', type: 'weather', size: 2, config: { latitude: 52.52, longitude: 13.4, label: 'Berlin' } },
      { id: 'h', type: 'host', size: 4, config: { mounts: ['/', '/srv'] } },
      { id: 'x', type: 'health', size: 4, config: { categories: ['media'] } },
      { id: 's', type: 'speedtest', size: 4 },
      { id: 'k', type: 'cluster', size: 4 },
      { id: 'ai', type: 'ai-usage', size: 4 },
    ],
  });
  t.equal(good.statusCode, 200, good.body);
  const cases: [object, RegExp][] = [
    [
      { id: 'c1', type: 'clock', size: 2, config: { timezone: 'Mars/Olympus' } },
      /card "c1": config.timezone "Mars\/Olympus"/,
    ],
    [{ id: 'c2', type: 'clock', size: 2, config: { hour12: 'yes' } }, /card "c2": config.hour12/],
    [
      { id: 'w1', type: 'weather', size: 2, config: { latitude: 200, longitude: 0 } },
      /card "w1": config.latitude/,
    ],
    [
      { id: 'w2', type: 'weather', size: 2, config: { latitude: 10 } },
      /card "w2": config.latitude and config.longitude/,
    ],
    [{ id: 'h1', type: 'host', size: 2, config: { mounts: ['relative'] } }, /card "h1": config.mounts/],
    [
      { id: 'x1', type: 'health', size: 2, config: { colour: 'red' } },
      /card "x1": config.colour is not a health setting/,
    ],
  ];
  for (const [card, message] of cases) {
    const bad = await put({ mode: 'snap', cards: [card] });
    t.equal(bad.statusCode, 400, JSON.stringify(card));
    t.match(bad.json(), { code: 'LAYOUT_INVALID', message });
  }
  const duplicate = await put({
    mode: 'snap',
    cards: [
      { id: 'same', type: 'clock', size: 2 },
      { id: 'same', type: 'blank', size: 2 },
    ],
  });
  t.equal(duplicate.statusCode, 400);
  t.match(duplicate.json().message, /card "same": the id is used by another card/);
  const many = await put({
    mode: 'snap',
    cards: Array.from({ length: 101 }, (_, i) => ({ id: `b${i}`, type: 'blank', size: 1 })),
  });
  t.equal(many.statusCode, 400);
  t.match(many.json().message, /100/);
  const hundred = await put({
    mode: 'snap',
    cards: Array.from({ length: 100 }, (_, i) => ({ id: `b${i}`, type: 'blank', size: 1 })),
  });
  t.equal(hundred.statusCode, 200, '100 cards are fine');
});

t.test('free mode keeps positions and refuses overlaps, naming both cards', async (t) => {
  const free = await put({
    mode: 'free',
    cards: [
      { id: 'left', type: 'clock', size: 4, x: 0, y: 0, h: 2 },
      { id: 'right', type: 'weather', size: 4, x: 8, y: 5, h: 3 },
    ],
  });
  t.equal(free.statusCode, 200, free.body);
  t.match(free.json().cards, [
    { id: 'left', x: 0, y: 0, w: 4, h: 2 },
    { id: 'right', x: 8, y: 5, w: 4, h: 3 },
  ]);
  const overlap = await put({
    mode: 'free',
    cards: [
      { id: 'one', type: 'clock', size: 4, x: 0, y: 0, h: 2 },
      { id: 'two', type: 'weather', size: 4, x: 3, y: 1, h: 2 },
    ],
  });
  t.equal(overlap.statusCode, 400);
  t.match(overlap.json().message, /card "two": overlaps card "one"/);
  const past = await put({ mode: 'free', cards: [{ id: 'wide', type: 'host', size: 6, x: 8, y: 0 }] });
  t.equal(past.statusCode, 400);
  t.match(past.json().message, /card "wide": x 8 with size 6 reaches past column 12/);
  const touching = await put({
    mode: 'free',
    cards: [
      { id: 'a', type: 'clock', size: 4, x: 0, y: 0, h: 2 },
      { id: 'b', type: 'clock', size: 4, x: 4, y: 0, h: 2 },
      { id: 'c', type: 'clock', size: 4, x: 0, y: 2, h: 2 },
    ],
  });
  t.equal(touching.statusCode, 200, 'cards that only touch do not overlap');
});

t.test('ETag and If-Match: a stale tag is 412, a current one wins, none means last write wins', async (t) => {
  const first = await get();
  const tag = first.headers.etag as string;
  const layout = { mode: 'snap', cards: [{ id: 'tab1', type: 'clock', size: 2 }] };
  const saved = await put(layout, { 'if-match': tag });
  t.equal(saved.statusCode, 200, saved.body);
  const newTag = saved.headers.etag as string;
  t.not(newTag, tag, 'the write makes a new ETag');
  t.equal((await get()).headers.etag, newTag, 'and GET sends it');

  const stale = await put(
    { mode: 'snap', cards: [{ id: 'tab2', type: 'clock', size: 2 }] },
    { 'if-match': tag },
  );
  t.equal(stale.statusCode, 412);
  t.equal(stale.json().code, 'LAYOUT_CHANGED');
  t.same(
    (await get()).json().cards.map((card: { id: string }) => card.id),
    ['tab1'],
    'the stale write changed nothing',
  );
  const blind = await put({ mode: 'snap', cards: [{ id: 'tab2', type: 'clock', size: 2 }] });
  t.equal(blind.statusCode, 200, 'without If-Match the last write wins');
  t.equal((await get()).json().cards[0].id, 'tab2');
});

t.test('per owner: an access-proxy email has its own layout, starting from the bearer owner’s', async (t) => {
  const base = await put({ mode: 'snap', cards: [{ id: 'base', type: 'host', size: 6 }] });
  t.equal(base.statusCode, 200);
  const alice = await asEmail('alice@example.com', { method: 'GET' });
  t.equal(alice.statusCode, 200, alice.body);
  t.same(
    alice.json().cards.map((card: { id: string }) => card.id),
    ['base'],
    'starts from the bearer owner’s',
  );

  const aliceSaved = await asEmail('alice@example.com', {
    method: 'PUT',
    payload: { mode: 'snap', cards: [{ id: 'alice', type: 'flame', size: 3 }] },
    headers: { 'if-match': alice.headers.etag as string },
  });
  t.equal(aliceSaved.statusCode, 200, aliceSaved.body);
  t.same((await asEmail('alice@example.com', { method: 'GET' })).json().cards[0].id, 'alice');
  t.same((await get()).json().cards[0].id, 'base', 'the bearer owner’s is untouched');
  t.same(
    (await asEmail('bob@example.com', { method: 'GET' })).json().cards[0].id,
    'base',
    'bob starts from it too',
  );

  const rows = await ta.sql<
    { owner_key: string }[]
  >`select owner_key from dashboard_layouts order by owner_key`;
  t.same(
    rows.map((row) => row.owner_key),
    ['', 'alice@example.com'],
  );
});
