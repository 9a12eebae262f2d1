// The layers of the server, held by its import graph (dpdm reads every import, `import type` and dynamic imports
// included): no cycle anywhere, and imports only point down. lib/ is the bottom: small helpers that know nothing of
// the hub's plugins, domains, job engine or configuration. config/ reads the environment with lib/ alone. plugins/ and worker/ know no domain (the worker is handed
// the modules' tasks). A domain is reached through the files it exports for that, never its store.ts (each domain's
// SQL is its own), and a domain's index.ts (its module) is listed by modules.ts alone.
import { type DependencyTree, parseCircular, parseDependencyTree } from 'dpdm';
import t from 'tap';

const sources = [
  'main.ts',
  'app.ts',
  'module.ts',
  'modules.ts',
  'config/**/*.ts',
  'lib/**/*.ts',
  'plugins/**/*.ts',
  'worker/**/*.ts',
  'domains/**/*.ts',
];

/** The entry points: they put the hub together, so they may import the composition root. */
const entries = new Set(['main.ts', 'app.ts', 'worker/main.ts']);
const root = new Set(['main.ts', 'app.ts', 'module.ts', 'modules.ts']);

function domainOf(file: string): string | null {
  return /^domains\/([^/]+)\//.exec(file)?.[1] ?? null;
}

/** Why importing `target` from `file` breaks a layer rule, or null when it does not. */
function layerProblem(file: string, target: string): string | null {
  if (file.startsWith('lib/')) {
    if (/^(plugins|domains|worker|config)\//.test(target) || root.has(target)) {
      return 'lib/ imports nothing from plugins/, domains/, worker/, config/ or the composition root';
    }
  }
  if (file.startsWith('config/') && (/^(plugins|domains|worker)\//.test(target) || root.has(target))) {
    return 'config/ imports nothing but lib/';
  }
  if (file.startsWith('plugins/') && (target.startsWith('domains/') || root.has(target))) {
    return 'plugins/ imports no domain';
  }
  if (file.startsWith('worker/')) {
    if (target.startsWith('domains/')) return 'worker/ imports no domain (the modules hand it their tasks)';
    if (root.has(target) && !entries.has(file))
      return 'in worker/, only the process entry imports the modules';
  }
  const from = domainOf(file);
  const to = domainOf(target);
  if (to && from !== to && target === `domains/${to}/store.ts`) {
    return "a domain's store.ts is imported by that domain alone";
  }
  if (to && target === `domains/${to}/index.ts` && file !== 'modules.ts') {
    return "a domain's index.ts (its module) is imported by modules.ts alone";
  }
  return null;
}

/** Every import that breaks a rule, as `file -> target: rule`. */
function layerProblems(tree: DependencyTree): string[] {
  const problems: string[] = [];
  for (const [file, dependencies] of Object.entries(tree)) {
    for (const dependency of dependencies ?? []) {
      if (!dependency.id || dependency.id.includes('node_modules')) continue;
      const problem = layerProblem(file, dependency.id);
      if (problem) problems.push(`${file} -> ${dependency.id}: ${problem}`);
    }
  }
  return problems;
}

/** A graph made by hand, for the rules' own test. */
function graph(edges: Record<string, string[]>): DependencyTree {
  return Object.fromEntries(
    Object.entries(edges).map(([issuer, targets]) => [
      issuer,
      targets.map((id) => ({ issuer, request: id, kind: 'StaticImport' as never, id })),
    ]),
  );
}

t.test('the rules catch each kind of wrong import, and a cycle', async (t) => {
  t.same(
    layerProblems(
      graph({
        'lib/cache.ts': ['plugins/db.ts', 'config/index.ts', 'domains/icons/svg.ts', 'lib/errors.ts'],
        'plugins/auth.ts': ['domains/agents/store.ts', 'lib/errors.ts'],
        'config/capture.ts': ['worker/cron.ts', 'lib/cron.ts'],
        'worker/tasks.ts': ['domains/capture/jobs.ts', 'modules.ts', 'worker/contract.ts'],
        'worker/main.ts': ['modules.ts', 'domains/capture/jobs.ts'],
        'domains/actions/run.ts': [
          'domains/audit/store.ts',
          'domains/audit/trail.ts',
          'domains/actions/store.ts',
        ],
        'domains/health/tools.ts': ['domains/health/index.ts'],
        'modules.ts': ['domains/health/index.ts'],
        'app.ts': ['modules.ts', 'domains/agents/store.ts'],
      }),
    ).map((problem) => problem.split(':')[0]),
    [
      'lib/cache.ts -> plugins/db.ts',
      'lib/cache.ts -> config/index.ts',
      'lib/cache.ts -> domains/icons/svg.ts',
      'plugins/auth.ts -> domains/agents/store.ts',
      'config/capture.ts -> worker/cron.ts',
      'worker/tasks.ts -> domains/capture/jobs.ts',
      'worker/tasks.ts -> modules.ts',
      'worker/main.ts -> domains/capture/jobs.ts',
      'domains/actions/run.ts -> domains/audit/store.ts',
      'domains/health/tools.ts -> domains/health/index.ts',
      'app.ts -> domains/agents/store.ts',
    ],
  );
  t.same(parseCircular(graph({ 'a.ts': ['b.ts'], 'b.ts': ['c.ts'], 'c.ts': ['a.ts'], 'd.ts': ['a.ts'] })), [
    ['a.ts', 'b.ts', 'c.ts'],
  ]);
});

t.test('the server has no import cycle and keeps its layers', async (t) => {
  // transform: false keeps `import type`: a cycle closed by types is still a cycle of the design.
  const tree = await parseDependencyTree(sources, {
    context: process.cwd(),
    transform: false,
    skipDynamicImports: false,
  });
  t.ok(Object.keys(tree).length > 200, 'the whole server was read');
  t.ok(
    tree['app.ts']?.some((dependency) => dependency.id === 'modules.ts'),
    'imports are resolved to files',
  );
  t.ok(
    tree['domains/audit/trail.ts']?.some((dependency) => dependency.id === 'domains/audit/store.ts'),
    're-exports count as imports',
  );
  t.same(
    parseCircular(tree).map((cycle) => cycle.join(' -> ')),
    [],
    'no cycle',
  );
  t.same(layerProblems(tree), [], 'every import points down');
});
