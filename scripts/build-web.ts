// npm run build:web: builds the browser app (web/) into web/dist with Vite, in this process. With --if-stale it
// builds only when web/dist is missing or older than its sources (npm start runs it so: a first start builds, the
// next ones start at once). The sources' fingerprint is kept in web/dist/.sources.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { builtFrom, fingerprint, stampName } from './fingerprint.ts';

const web = path.resolve(import.meta.dirname, '..', 'web');
const dist = path.join(web, 'dist');

/** A hash of every source file of the app, names and contents. */
function webFingerprint(): Promise<string> {
  return fingerprint(web, { skip: ['node_modules', 'dist'] });
}

export async function buildWeb(options: { ifStale?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  const sources = await webFingerprint();
  if (options.ifStale && (await builtFrom(dist, sources))) return false;
  const { build } = await import('vite');
  await build({
    configFile: path.join(web, 'vite.config.ts'),
    root: web,
    logLevel: options.quiet ? 'warn' : 'info',
  });
  await writeFile(path.join(dist, stampName), sources);
  return true;
}

if (import.meta.main) {
  await buildWeb({ ifStale: process.argv.includes('--if-stale') });
}
