// npm run build:server: bundles the service's own modules (main.ts and worker/main.ts with everything they import
// from this repository) into dist/ with Rolldown, in this process. npm start and npm run worker run the bundle
// (with --if-stale: built only when dist/ is missing or older than its sources; the sources' fingerprint is kept in
// dist/.sources); the tests run the sources.
//
// Why: Node loads the ~460 modules of the sources one by one, type-stripped, each with its own module record, source
// string and compile-cache entry; as a handful of chunks the same code idles in about 10 MB less memory and starts
// sooner (README, "Resources"). Packages stay in node_modules, imported at run time as before: several read their own
// files (icon data, the vendor table, Swagger UI's assets), and a package both bundled and loaded from node_modules
// would run as two instances. The one exception is TypeBox: about 700 modules of a few hundred bytes each, which
// only the sources import (every route's schema, lib/typebox.ts), all of them statically; bundled, they are a few
// hundred kilobytes of one chunk instead of as many module records. Modules loaded on first use (`await import(...)`)
// stay separate chunks, loaded on first use.
//
// The output sits one directory below the repository's root, as lib/ and plugins/ do: the paths the code finds from
// its own place (sql/, web/dist, package.json) hold from both.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { builtFrom, fingerprint, stampName } from './fingerprint.ts';

const root = path.resolve(import.meta.dirname, '..');
/** What the service's bundle is not built from: other programs' sources, data, outputs. */
const notServer = [
  'node_modules',
  '.git',
  'web',
  'test',
  'bench',
  'docs',
  'deploy',
  'patches',
  'data',
  '.tap',
];

/** A bare specifier (a package or a Node built-in), not a path into this repository: left to Node at run time. */
const isPackage = (id: string) => !id.startsWith('.') && !path.isAbsolute(id);
/** Bundled all the same (see above): TypeBox's entry points. */
const isBundledPackage = (id: string) => id === 'typebox' || id.startsWith('typebox/');

function serverFingerprint(outName: string): Promise<string> {
  return fingerprint(root, {
    skip: [...notServer, outName],
    include: (file) => file.endsWith('.ts'),
    extra: [path.join(root, 'package-lock.json')],
  });
}

/** The entry points and the fingerprint: put in place after the chunks they import. */
const lastInPlace = ['main.js', 'worker.js', stampName];
/** How long a chunk no build wrote since stays, for a process started from an earlier build. */
const chunkKeptMs = 7 * 24 * 3600_000;

/**
 * Builds the bundle into `outDir` (a directory right under the repository's root, `dist` unless told). Returns false
 * when `ifStale` found it current.
 *
 * The new files are built beside the output and each renamed into place, the chunks first and the entry points and
 * the fingerprint last, so a start never sees half a build. A chunk's name carries its content's hash: a process
 * started from an earlier build (a worker left running while the hub restarts after an update) still finds the chunks
 * it loads on first use, and builds started together (npm start and npm run worker right after an update) write the
 * same files. Chunks no build has written for a week are removed.
 */
export async function buildServer(options: { ifStale?: boolean; outDir?: string; quiet?: boolean } = {}) {
  const outName = options.outDir ?? 'dist';
  if (outName.includes('/') || outName.startsWith('.')) {
    throw new Error(`${outName}: the bundle goes in a directory right under the repository's root`);
  }
  const out = path.join(root, outName);
  const sources = await serverFingerprint(outName);
  if (options.ifStale && (await builtFrom(out, sources))) return false;

  const started = performance.now();
  const { build } = await import('rolldown');
  const building = `${out}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await build({
      cwd: root,
      input: { main: 'main.ts', worker: 'worker/main.ts' },
      platform: 'node',
      external: (id) => isPackage(id) && !isBundledPackage(id),
      logLevel: 'warn',
      // Not minified: stack traces keep the sources' names and the code stays readable. Without the sources' doc
      // comments, whose text the heap would hold, and ASCII only: V8 keeps a source with one character beyond
      // Latin-1 (a ’ in a description) as two bytes a character, the whole chunk's text.
      output: {
        dir: building,
        format: 'esm',
        chunkFileNames: '[name]-[hash].js',
        charset: 'ascii',
        comments: { legal: true, annotation: false, jsdoc: false },
      },
    });
    await writeFile(path.join(building, stampName), sources);
    const built = await readdir(building);
    await mkdir(out, { recursive: true });
    const inOrder = [...built.filter((name) => !lastInPlace.includes(name)), ...lastInPlace];
    for (const name of inOrder) await rename(path.join(building, name), path.join(out, name));
    const keptSince = Date.now() - chunkKeptMs;
    for (const name of await readdir(out)) {
      if (built.includes(name)) continue;
      const file = path.join(out, name);
      // A build running beside this one may have removed it already.
      const written = await stat(file).catch(() => null);
      if (written && written.mtimeMs < keptSince) await rm(file, { force: true });
    }
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  if (!options.quiet) {
    console.log(`built the server into ${outName}/ in ${Math.round(performance.now() - started)} ms`);
  }
  return true;
}

if (import.meta.main) {
  await buildServer({ ifStale: process.argv.includes('--if-stale') });
}
