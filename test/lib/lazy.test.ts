import { test } from 'tap';
import { lazy, lazyRequire, onFirstUse } from '../../lib/lazy.ts';

test('onFirstUse makes its value on the first call only, and keeps an undefined value too', async (t) => {
  let made = 0;
  const value = onFirstUse(() => ({ made: ++made }));
  t.equal(made, 0, 'nothing is made before the first call');
  const first = value();
  t.equal(value(), first, 'every call gets the same value');
  t.equal(made, 1);

  let undefinedMade = 0;
  const nothing = onFirstUse(() => {
    undefinedMade++;
    return undefined;
  });
  nothing();
  nothing();
  t.equal(undefinedMade, 1, 'an undefined value is kept, not made again');
});

test('onFirstUse tries again after a failed make', async (t) => {
  let calls = 0;
  const value = onFirstUse(() => {
    calls++;
    if (calls === 1) throw new Error('not yet');
    return calls;
  });
  t.throws(() => value(), /not yet/);
  t.equal(value(), 2);
  t.equal(value(), 2);
});

test('lazy shares one load between callers and tries a failed load again', async (t) => {
  let loads = 0;
  const load = lazy(async () => {
    loads++;
    if (loads === 1) throw new Error('first load fails');
    return loads;
  });
  await t.rejects(load(), /first load fails/);
  const [a, b] = await Promise.all([load(), load()]);
  t.equal(a, 2);
  t.equal(b, 2);
  t.equal(loads, 2);
});

test('lazyRequire loads the package on the first call and gives the instance import gives', async (t) => {
  const ipaddr = lazyRequire<typeof import('ipaddr.js')>('ipaddr.js');
  const imported = (await import('ipaddr.js')).default;
  t.equal(ipaddr().isValid('192.0.2.1'), true);
  t.equal(ipaddr(), imported, 'one instance');
});
