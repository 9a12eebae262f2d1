// The bundle npm start runs (scripts/build-server.ts), built into a scratch directory beside dist/: a build with
// --if-stale over a current bundle does nothing and over an outdated one builds again; the bundle starts as the sources
// do (database, migrations, worker), serves the web app, runs none of the repository's TypeScript modules and loads
// none of the heavy libraries at start, and loads one on first use; its worker entry runs as `npm run worker` does.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { buildServer } from '../../scripts/build-server.ts';
import { heavyPackages, loadedModules, packagesOf, traceEnvironment } from '../helpers/modules.ts';
import { processes, repoRoot } from '../helpers/process.ts';

const procs = processes(t);
const outDir = `dist-test-${randomBytes(4).toString('hex')}`;
t.teardown(() => rm(path.join(repoRoot, outDir), { recursive: true, force: true }));

t.test('a build, and --if-stale over it', async (t) => {
  t.equal(await buildServer({ outDir, quiet: true }), true, 'built');
  const files = await readdir(path.join(repoRoot, outDir));
  t.ok(files.includes('main.js') && files.includes('worker.js'), 'both entry points are there');
  // Latin-1 only, so V8 holds each chunk's text at one byte a character.
  for (const file of files.filter((name) => name.endsWith('.js'))) {
    const text = await readFile(path.join(repoRoot, outDir, file), 'utf8');
    const wide = [...text].findIndex((character) => (character.codePointAt(0) ?? 0) > 0xff);
    t.equal(
      wide,
      -1,
      `${file} is Latin-1${wide < 0 ? '' : `: ${JSON.stringify(text.slice(wide - 60, wide + 1))}`}`,
    );
  }
  t.equal(await buildServer({ outDir, ifStale: true, quiet: true }), false, 'a current bundle is kept');
  await writeFile(path.join(repoRoot, outDir, '.sources'), 'an older fingerprint');
  t.equal(
    await buildServer({ outDir, ifStale: true, quiet: true }),
    true,
    'an outdated bundle is built again',
  );
  t.equal(await buildServer({ outDir, ifStale: true, quiet: true }), false, 'and then kept');
  await t.rejects(buildServer({ outDir: 'nested/dist', quiet: true }), /right under the repository's root/);
});

t.test("a rebuild keeps an earlier build's chunks for a week", async (t) => {
  // What an earlier build wrote and this one does not: a process started from it may still load them.
  const recent = path.join(repoRoot, outDir, 'earlier-AAAAAAAA.js');
  const weekOld = path.join(repoRoot, outDir, 'earlier-BBBBBBBB.js');
  await writeFile(recent, 'export {};\n');
  await writeFile(weekOld, 'export {};\n');
  const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600_000);
  await utimes(weekOld, eightDaysAgo, eightDaysAgo);
  t.equal(await buildServer({ outDir, quiet: true }), true);
  const files = await readdir(path.join(repoRoot, outDir));
  t.ok(files.includes('earlier-AAAAAAAA.js'), 'a chunk written days ago stays');
  t.notOk(files.includes('earlier-BBBBBBBB.js'), 'one no build wrote for a week is removed');
  await rm(recent, { force: true });
});

t.test('builds of the same sources at once (npm start and npm run worker after an update)', async (t) => {
  const results = await Promise.allSettled(
    Array.from({ length: 3 }, () => buildServer({ outDir, quiet: true })),
  );
  t.same(
    results.map((result) => (result.status === 'rejected' ? String(result.reason) : result.value)),
    [true, true, true],
  );
  t.equal(await buildServer({ outDir, ifStale: true, quiet: true }), false, 'one complete bundle is there');
  t.same(
    (await readdir(repoRoot)).filter((name) => name.startsWith(`${outDir}.`)),
    [],
    'and no half-built copy beside it',
  );
});

t.test('the bundle runs the service', async (t) => {
  const dataDir = await procs.dataDir();
  const trace = path.join(path.dirname(dataDir), 'modules.txt');
  const hub = await procs.startService(
    { DATA_DIR: dataDir, LOG_LEVEL: 'info', ...traceEnvironment(trace) },
    120_000,
    `${outDir}/main.js`,
  );
  // Migrations (sql/, found from the bundle's directory) were applied, the worker started, the version was read.
  await hub.child.waitForOutput(/Worker connected and looking for jobs/);
  const { version } = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  t.match(hub.child.output(), `ops-hub ${version} listening`);
  // The web app (web/dist, found from the bundle's directory).
  const page = await fetch(`${hub.url}/`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.match(await page.text(), /<script type="module"/);

  // `npm run worker` beside it, on the same data directory (the hub's runtime file names the database).
  const worker = procs.spawn(`${outDir}/worker.js`, { DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  await worker.waitForOutput(/worker running/, 60_000);
  worker.process.kill('SIGTERM');
  t.equal((await worker.exited).code, 0, 'the worker stops on SIGTERM');

  // Last: the signal that asks for the list also stops the service (close-with-grace takes SIGUSR2 as a stop).
  const list = await loadedModules(hub.child.pid, trace);
  const ours = list.filter(
    (url) => url.startsWith(pathToFileURL(repoRoot).href) && !url.includes('/node_modules/'),
  );
  t.ok(ours.includes(pathToFileURL(path.join(repoRoot, outDir, 'main.js')).href), 'the bundle ran');
  t.same(
    ours.filter((url) => url.endsWith('.ts') && !url.endsWith('/test/fixtures/module-trace.ts')),
    [],
    "none of the repository's TypeScript modules was loaded",
  );
  const packages = packagesOf(list);
  t.ok(packages.has('fastify'), 'packages come from node_modules');
  // TypeBox is inside the bundle, all of it: a module of it loaded from node_modules would be a second instance, with
  // a format registry of its own.
  t.notOk(packages.has('typebox'), 'no TypeBox module was loaded from node_modules');
  t.same(
    heavyPackages.filter((name) => packages.has(name)),
    [],
    'no heavy library was loaded at start',
  );

  // Again on the same directory: a first request that loads a heavy library from a chunk of the bundle (the brand
  // icon data and the renderer, found from the bundle's directory).
  await hub.child.exited;
  const again = await procs.startService(
    { DATA_DIR: dataDir, LOG_LEVEL: 'debug' },
    120_000,
    `${outDir}/main.js`,
  );
  // Once ready, the memory the start freed went back to the system (lib/memory.ts; Linux with glibc, as here).
  await again.child.waitForOutput(/returned freed memory/);
  const released = again.child
    .stdout()
    .split('\n')
    .find((line) => line.includes('returned freed memory'));
  const rss = JSON.parse(released ?? '{}') as { rss_before: number; rss_after: number };
  t.ok(rss.rss_after < rss.rss_before, `resident set ${rss.rss_before} -> ${rss.rss_after} bytes`);
  const icon = await fetch(`${again.url}/api/icons/github.png?size=64`);
  t.equal(icon.status, 200);
  t.equal(icon.headers.get('content-type'), 'image/png');
  t.same([...new Uint8Array(await icon.arrayBuffer()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
});
