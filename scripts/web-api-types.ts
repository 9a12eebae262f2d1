// npm run web:api: the browser app's API types, generated from the hub's own OpenAPI document. Builds the app in
// this process (no database is reached: nothing is queried), writes /api/openapi.json to web/openapi.json and turns
// it into web/src/api.d.ts with openapi-typescript. Run it after changing a route schema; the web tests check that
// the committed file is current.
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config/index.ts';

const root = path.resolve(import.meta.dirname, '..');
export const openapiFile = path.join(root, 'web', 'openapi.json');
export const typesFile = path.join(root, 'web', 'src', 'api.d.ts');

/** The OpenAPI document exactly as the hub serves it. */
export async function openapiDocument(): Promise<string> {
  const sql = postgres('postgres://unused@127.0.0.1:9/unused', { max: 1 });
  const app = await buildApp({
    config: loadConfig({
      DATA_DIR: path.join(root, 'data'),
      OWNER_TOKEN: 'x'.repeat(32),
      LOG_LEVEL: 'silent',
    }),
    sql,
    // No URL to watch: a watched database that never answers would turn every request, this one too, into a 503.
    databaseUrl: '',
    ownerToken: 'x'.repeat(32),
    worker: 'off',
    cron: false,
  });
  try {
    await app.ready();
    // What /api/openapi.json answers, asked of the app directly: a request could meet the database watch's 503
    // (there is no database here) on a busy machine.
    return `${JSON.stringify(app.swagger(), null, 2)}\n`;
  } finally {
    await app.close();
    await sql.end({ timeout: 1 });
  }
}

/** Writes the document to `documentFile` and the types generated from it to `outFile`. */
export async function generate(documentFile = openapiFile, outFile = typesFile): Promise<void> {
  await writeFile(documentFile, await openapiDocument());
  const cli = path.join(root, 'web', 'node_modules', '.bin', 'openapi-typescript');
  const result = spawnSync(cli, [documentFile, '--output', outFile, '--root-types'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0)
    throw new Error(`openapi-typescript failed (${result.signal ?? `exit ${result.status}`})`);
}

if (import.meta.main) await generate();
