// What the service loads at start (README, "Memory and start"): the heavy libraries that only some requests or jobs
// need are loaded on their first use, so a later eager import of one of them fails here rather than quietly adding
// megabytes to every start. The service runs as a user runs it, with a preload recording each module it resolves.
import path from 'node:path';
import t from 'tap';
import { heavyPackages, loadedModules, packagesOf, traceEnvironment } from './helpers/modules.ts';
import { processes } from './helpers/process.ts';

const procs = processes(t);

t.test('a started service has loaded none of the heavy libraries', async (t) => {
  const dataDir = await procs.dataDir();
  const trace = path.join(path.dirname(dataDir), 'modules.txt');
  const hub = await procs.startService(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...traceEnvironment(trace),
    },
    120_000,
  );
  // The worker starts its cron and first jobs just after ready: give them a moment to load what they load.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  t.equal((await fetch(`${hub.url}/api/readyz`)).status, 200);
  const list = await loadedModules(hub.child.pid, trace);
  const packages = packagesOf(list);
  // The trace saw the start: the libraries every request needs are in it.
  t.ok(packages.has('fastify'), 'fastify was loaded');
  t.ok(packages.has('graphile-worker'), 'graphile-worker was loaded');
  t.same(
    heavyPackages.filter((name) => packages.has(name)),
    [],
    'no heavy library was loaded at start',
  );
  // TypeBox is (every route's schema; the bundle carries it, test/scripts/build-server.test.ts).
  t.ok(packages.has('typebox'), 'typebox was loaded');
  // Node's bundled fetch client (and the web streams it brings) is loaded by an ES import of node:http, whose facade
  // reads the lazy WebSocket export (lib/errors.ts reads the status phrases without one).
  t.notOk(
    list.includes('node-internal:internal/deps/undici/undici'),
    "Node's bundled fetch client was not loaded",
  );
});
