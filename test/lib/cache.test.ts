// The upstream cache of the dashboard cards (lib/cache.ts): one upstream call for concurrent readers, the TTL on an
// injected clock, the last good value marked stale with its age when a refresh fails, the key limit and clear().
import t from 'tap';
import { TtlCache } from '../../lib/cache.ts';

function setup(options: { maxKeys?: number } = {}) {
  let clock = Date.parse('2026-11-22T12:00:00Z');
  const cache = new TtlCache<{ n: number }>({ ttlMs: 30_000, now: () => clock, ...options });
  const upstream = {
    calls: 0,
    failing: false,
    /** An upstream call answering after a turn of the event loop. */
    load: async () => {
      upstream.calls++;
      await new Promise((resolve) => setImmediate(resolve));
      if (upstream.failing) throw new Error('upstream down');
      return { n: upstream.calls };
    },
  };
  return { cache, upstream, advance: (ms: number) => (clock += ms), now: () => clock };
}

t.test('concurrent readers share one upstream call; the TTL decides when to call again', async (t) => {
  const { cache, upstream, advance, now } = setup();
  const reads = await Promise.all([1, 2, 3].map(() => cache.get('k', upstream.load)));
  t.equal(upstream.calls, 1, 'one call for three readers');
  t.same(
    reads.map((read) => read.value),
    [{ n: 1 }, { n: 1 }, { n: 1 }],
  );
  t.equal(reads[0].fetchedAt.getTime(), now());
  advance(29_999);
  t.same((await cache.get('k', upstream.load)).value, { n: 1 }, 'within the TTL: from memory');
  t.equal(upstream.calls, 1);
  advance(2);
  t.same((await cache.get('k', upstream.load)).value, { n: 2 }, 'after it: fetched again');
  await cache.get('other', upstream.load);
  t.equal(upstream.calls, 3, 'another key is another call');
});

t.test(
  'a failed refresh answers the last good value, stale with its age, and the next read tries again',
  async (t) => {
    const { cache, upstream, advance } = setup();
    upstream.failing = true;
    await t.rejects(cache.get('k', upstream.load), /upstream down/, 'nothing to fall back on: the failure');
    upstream.failing = false;
    const good = await cache.get('k', upstream.load);
    t.notOk(good.stale);
    advance(45_000);
    upstream.failing = true;
    const [stale, alsoStale] = await Promise.all([
      cache.get('k', upstream.load),
      cache.get('k', upstream.load),
    ]);
    t.equal(upstream.calls, 3, 'concurrent readers of a failing refresh share it too');
    t.same(stale.value, good.value);
    t.equal(stale.fetchedAt.getTime(), good.fetchedAt.getTime());
    t.match(stale.stale, { age_seconds: 45, error: /upstream down/ });
    t.match(alsoStale.stale, { age_seconds: 45 }, 'every reader learns it is stale');
    advance(1_000);
    t.match((await cache.get('k', upstream.load)).stale, { age_seconds: 46 }, 'tried again, still stale');
    t.equal(upstream.calls, 4);
    upstream.failing = false;
    const fresh = await cache.get('k', upstream.load);
    t.notOk(fresh.stale, 'the upstream back: fresh again');
    t.same(fresh.value, { n: 5 });
  },
);

t.test('at most maxKeys keys; clear() forgets every value', async (t) => {
  const { cache, upstream } = setup({ maxKeys: 2 });
  await cache.get('a', upstream.load);
  await cache.get('b', upstream.load);
  await cache.get('a', upstream.load);
  await cache.get('c', upstream.load);
  t.equal(upstream.calls, 3);
  await cache.get('a', upstream.load);
  t.equal(upstream.calls, 3, 'the key read last is kept');
  await cache.get('b', upstream.load);
  t.equal(upstream.calls, 4, 'the other went first');

  const during = cache.get('d', upstream.load);
  cache.clear();
  t.same((await during).value, { n: 5 }, 'a read under way when the cache is cleared still gets its value');
  await cache.get('a', upstream.load);
  t.equal(upstream.calls, 6, 'after clear() every key is fetched again');
});
