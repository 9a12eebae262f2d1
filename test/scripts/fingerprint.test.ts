// The sources' fingerprint the builds' --if-stale compares: it changes with a file's content or name and with a new
// file, and not with what is skipped or not included.
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { fingerprint } from '../../scripts/fingerprint.ts';

t.test('fingerprint', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-fingerprint-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(path.join(root, 'lib'));
  await mkdir(path.join(root, 'node_modules'));
  await writeFile(path.join(root, 'main.ts'), 'export {};\n');
  await writeFile(path.join(root, 'lib', 'a.ts'), 'export const a = 1;\n');
  await writeFile(path.join(root, 'lock.json'), '{}');
  const options = {
    skip: ['node_modules'],
    include: (file: string) => file.endsWith('.ts'),
    extra: [path.join(root, 'lock.json')],
  };
  const first = await fingerprint(root, options);
  t.match(first, /^[0-9a-f]{64}$/);
  t.equal(await fingerprint(root, options), first, 'the same tree, the same fingerprint');

  await writeFile(path.join(root, 'node_modules', 'b.ts'), 'skipped');
  await writeFile(path.join(root, 'README.md'), 'not included');
  t.equal(await fingerprint(root, options), first, 'skipped and not included files do not count');

  await writeFile(path.join(root, 'lib', 'a.ts'), 'export const a = 2;\n');
  const changed = await fingerprint(root, options);
  t.not(changed, first, "a file's content counts");
  await rename(path.join(root, 'lib', 'a.ts'), path.join(root, 'lib', 'b.ts'));
  const renamed = await fingerprint(root, options);
  t.not(renamed, changed, "a file's name counts");
  await writeFile(path.join(root, 'lib', 'c.ts'), '');
  const added = await fingerprint(root, options);
  t.not(added, renamed, 'a new file counts');
  await writeFile(path.join(root, 'lock.json'), '{"changed":true}');
  t.not(await fingerprint(root, options), added, 'an extra file counts');
});
