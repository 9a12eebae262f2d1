// What the service loads at start (README, "Memory and start"): the heavy libraries that only some requests or jobs
// need are loaded on their first use, so a later eager import of one of them fails here rather than quietly adding
// megabytes to every start. The service runs as a user runs it, with a preload recording each module it resolves.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { processes, repoRoot, until } from './helpers/process.ts';

const procs = processes(t);

/** Loaded on first use (see each one's module): none of them may appear in a start's module list. */
const heavy = [
  'jsdom', // lib/extract.ts, domains/icons/svg.ts
  'linkedom', // lib/extract.ts
  'dompurify', // domains/icons/svg.ts
  '@mozilla/readability', // lib/extract.ts
  'unpdf', // lib/extract.ts
  '@resvg/resvg-js', // domains/icons/render.ts
  '@modelcontextprotocol/sdk', // domains/mcp/index.ts, domains/mcp-servers/downstream.ts
  'zod', // under the MCP SDK
  'oui-data', // domains/devices/mac.ts
  'simple-icons', // domains/icons/brands.ts
  '@iconify-json/mdi', // domains/icons/mdi.ts
  '@iconify/utils', // domains/icons/mdi.ts
  'nodemailer', // domains/alerts/send.ts
  'feedsmith', // domains/feeds/parse.ts
  'prom-client', // domains/metrics/index.ts
  'diff', // lib/text-diff.ts
  'yauzl', // lib/zip.ts, domains/hub-backup/archive.ts
  'yazl', // domains/hub-backup/archive.ts, domains/transfer/export.ts
];

t.test('a started service has loaded none of the heavy libraries', async (t) => {
  const dataDir = await procs.dataDir();
  const trace = path.join(path.dirname(dataDir), 'modules.txt');
  const hub = await procs.startService(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      MODULE_TRACE_FILE: trace,
      NODE_OPTIONS: `--import ${path.join(repoRoot, 'test', 'fixtures', 'module-trace.ts')}`,
    },
    120_000,
  );
  // The worker starts its cron and first jobs just after ready: give them a moment to load what they load.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  t.equal((await fetch(`${hub.url}/api/readyz`)).status, 200);
  process.kill(hub.child.pid, 'SIGUSR2');
  const list = await until('the module list', () => readFile(trace, 'utf8').catch(() => undefined));

  const packages = new Set(
    list
      .split('\n')
      .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
      .filter((name) => name !== undefined),
  );
  // The trace saw the start: the libraries every request needs are in it.
  t.ok(packages.has('fastify'), 'fastify was loaded');
  t.ok(packages.has('graphile-worker'), 'graphile-worker was loaded');
  t.same(
    heavy.filter((name) => packages.has(name)),
    [],
    'no heavy library was loaded at start',
  );
  // TypeBox's type builders are (every route's schema), its compiler and value functions are not (lib/typebox.ts).
  t.ok(packages.has('typebox'), 'typebox was loaded');
  t.same(
    list.split('\n').filter((url) => /\/typebox\/build\/(compile|value)\//.test(url)),
    [],
    "no module of TypeBox's compiler or value functions was loaded at start",
  );
  // Node's bundled fetch client (and the web streams it brings) is loaded by an ES import of node:http, whose facade
  // reads the lazy WebSocket export (lib/errors.ts reads the status phrases without one).
  t.notOk(
    list.split('\n').includes('node-internal:internal/deps/undici/undici'),
    "Node's bundled fetch client was not loaded",
  );
});
