// A fingerprint of a source tree, so a build run with --if-stale (npm start runs both the web app's and the
// server's so) can tell in a few milliseconds that its output is current.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

async function files(dir: string, skip: readonly string[]): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .filter((entry) => !skip.includes(entry.name))
      .map((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? files(full, skip) : Promise.resolve([full]);
      }),
  );
  return nested.flat().sort();
}

/**
 * A hash of the names and contents of the files under `root` (directories and files named in `skip` left out at
 * any depth) that `include` accepts, and of the `extra` files.
 */
export async function fingerprint(
  root: string,
  options: { skip: readonly string[]; include?: (file: string) => boolean; extra?: readonly string[] },
): Promise<string> {
  const hash = createHash('sha256');
  const listed = (await files(root, options.skip)).filter(options.include ?? (() => true));
  // Read one after another synchronously: a start waits on this, and hundreds of small asynchronous reads in turn
  // took ten times longer.
  for (const file of [...listed, ...(options.extra ?? [])]) {
    hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** The file in a build's output that keeps the fingerprint of the sources it was built from. */
export const stampName = '.sources';

/** Whether the output in `dir` was built from sources of this fingerprint. */
export async function builtFrom(dir: string, sources: string): Promise<boolean> {
  return (await readFile(path.join(dir, stampName), 'utf8').catch(() => '')) === sources;
}
