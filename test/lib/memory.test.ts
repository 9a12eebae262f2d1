import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'tap';
import { repoRoot } from '../helpers/process.ts';

const run = promisify(execFile);
const fixture = path.join(repoRoot, 'test', 'fixtures', 'freed-memory.ts');
const MB = 1024 * 1024;

async function freedMemory(mode: 'once' | 'watch' | 'held') {
  const { stdout } = await run(process.execPath, ['--expose-gc', fixture, mode], {
    env: { PATH: process.env.PATH ?? '', MALLOC_ARENA_MAX: '2' },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

// Linux with glibc is where the tests run (CI and the machine the targets are set on); elsewhere lib/memory.ts
// answers null and does nothing, which the first test checks there instead.
const report = process.report.getReport() as { header: { glibcVersionRuntime?: string } };
const glibc = process.platform === 'linux' && Boolean(report.header.glibcVersionRuntime);

test('returnFreedMemory hands the free pages in the middle of the heap back to the system', async (t) => {
  const result = (await freedMemory('once')) as { returned: boolean | null; before: number; after: number };
  if (!glibc) {
    t.equal(result.returned, null, 'not Linux with glibc: nothing is done');
    return;
  }
  t.equal(result.returned, true, 'malloc_trim reported memory returned');
  // About 36 MB was freed between the kept tenth; without the trim the resident set stays where it was.
  t.ok(result.before - result.after > 10 * MB, `resident set ${result.before} -> ${result.after} bytes`);
});

test('releaseFreedMemory releases once at once, again when the resident set grows, and not after stop', async (t) => {
  const result = (await freedMemory('watch')) as {
    atStart: number;
    releases: { before: number; after: number }[];
    afterStop: number;
  };
  if (!glibc) {
    t.same(
      result,
      { atStart: 0, releases: [], afterStop: 0, kept: 500 },
      'nothing is done, and no timer runs',
    );
    return;
  }
  t.equal(result.atStart, 1, 'the start was released at once');
  t.ok(result.releases.length >= 2, 'the timer saw the growth and released again');
  // The churn's memory may go back over more than one look (V8 frees it on a helper thread as it goes).
  const returned = result.releases.slice(1).reduce((sum, release) => sum + release.before - release.after, 0);
  t.ok(returned > 10 * MB, `${returned} bytes returned after the start's release`);
  t.equal(result.afterStop, 0, 'no release after stop()');
});

test("releaseFreedMemory releases again when a burst's buffers are collected after the release at its peak", async (t) => {
  const result = (await freedMemory('held')) as {
    atStart: number;
    releases: { before: number; after: number }[];
  };
  if (!glibc) {
    t.same(result.releases, [], 'nothing is done');
    return;
  }
  t.equal(result.atStart, 1, 'released at once, the buffers still held');
  const returned = result.releases.slice(1).reduce((sum, release) => sum + release.before - release.after, 0);
  t.ok(returned > 10 * MB, `${returned} bytes returned once they were collected`);
});
