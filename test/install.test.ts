// A fresh clone's `npm install` leaves the tree clean: the lock file already holds every package npm would add to
// it. npm records each optional dependency (a platform build such as Biome's android or win32 binary) whether or
// not this machine installs it, so a lock file missing one is rewritten by the first install. (.ci/run also fails
// when an install changes the tree.)
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { repoRoot } from './helpers/process.ts';

interface LockedPackage {
  optionalDependencies?: Record<string, string>;
  resolved?: string;
}
interface Lock {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
}

const lock = JSON.parse(await readFile(path.join(repoRoot, 'package-lock.json'), 'utf8')) as Lock;

/** Where Node's resolution would find `name` from the package at `from`: its own node_modules, then its parents'. */
function locate(from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (dir === '') return null;
    const at = dir.lastIndexOf('node_modules/');
    dir = at <= 0 ? '' : dir.slice(0, at - 1);
  }
}

t.test('every optional dependency has its entry in package-lock.json', async (t) => {
  t.equal(lock.lockfileVersion, 3);
  const missing: string[] = [];
  let checked = 0;
  for (const [where, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      checked++;
      if (!locate(where, name)) missing.push(`${name} (optional dependency of ${where || 'the project'})`);
    }
  }
  t.ok(checked > 10, `${checked} optional dependencies checked`);
  t.same(missing, [], 'npm install would add these entries');
});

t.test('the lock file names no registry, as npm writes it with the project .npmrc', async (t) => {
  const npmrc = await readFile(path.join(repoRoot, '.npmrc'), 'utf8');
  t.match(npmrc, /^omit-lockfile-registry-resolved=true$/m);
  // A workspace's entry links to its folder ("resolved": "web"); only registry addresses would differ by machine.
  const fromRegistry = Object.entries(lock.packages).filter(([, entry]) =>
    /^https?:/.test(entry.resolved ?? ''),
  );
  t.same(
    fromRegistry.map(([where]) => where),
    [],
  );
});
