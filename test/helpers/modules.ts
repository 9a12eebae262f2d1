// What a started service has loaded, as test/fixtures/module-trace.ts records it: the service is started with
// `traceEnvironment(file)` added to its environment and `loadedModules` asks it for the list.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot, until } from './process.ts';

/** Loaded on first use (see each one's module): none of them may appear in a start's module list. */
export const heavyPackages = [
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
  'undici', // lib/safe-fetch.ts: the first outbound request
];

/** The environment that makes a service record its modules into `file`. */
export function traceEnvironment(file: string): Record<string, string> {
  return {
    MODULE_TRACE_FILE: file,
    NODE_OPTIONS: `--import ${path.join(repoRoot, 'test', 'fixtures', 'module-trace.ts')}`,
  };
}

/** The URLs of the modules the traced process `pid` has loaded so far, and Node's internal ones (`node-internal:`). */
export async function loadedModules(pid: number, file: string): Promise<string[]> {
  process.kill(pid, 'SIGUSR2');
  const list = await until('the module list', () => readFile(file, 'utf8').catch(() => undefined));
  return list.split('\n');
}

/** The packages of node_modules among `modules`. */
export function packagesOf(modules: string[]): Set<string> {
  return new Set(
    modules
      .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
      .filter((name) => name !== undefined),
  );
}
