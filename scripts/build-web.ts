// npm run build:web: builds the browser app (web/) into web/dist with Vite, in this process. With --if-stale it
// builds only when web/dist is missing or older than its sources (npm start runs it so: a first start builds, the
// next ones start at once). The sources' fingerprint is kept in web/dist/.sources.
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const web = path.resolve(import.meta.dirname, '..', 'web');
const stamp = path.join(web, 'dist', '.sources');

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries
      .filter((entry) => !['node_modules', 'dist'].includes(entry.name))
      .map((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? files(full) : Promise.resolve([full]);
      }),
  );
  return nested.flat().sort();
}

/** A hash of every source file of the app, names and contents. */
export async function fingerprint(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await files(web)) {
    hash
      .update(path.relative(web, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  }
  return hash.digest('hex');
}

export async function buildWeb(options: { ifStale?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  const sources = await fingerprint();
  if (options.ifStale && (await readFile(stamp, 'utf8').catch(() => '')) === sources) return false;
  const { build } = await import('vite');
  await build({
    configFile: path.join(web, 'vite.config.ts'),
    root: web,
    logLevel: options.quiet ? 'warn' : 'info',
  });
  await writeFile(stamp, sources);
  return true;
}

if (import.meta.main) {
  await buildWeb({ ifStale: process.argv.includes('--if-stale') });
}
