// The test database cluster shared by one `npm test` run: started by before.ts, stopped by after.ts.
// A migrated template database is cloned for every test file, so files run in parallel on fresh data.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface ClusterState {
  /** Role allowed to create and drop databases (superuser of the embedded cluster, or DATABASE_URL's role). */
  adminUrl: string;
  /** Connection URL of the service role, to which a database name is appended per file. */
  appUrl: string;
  template: string;
  embedded: boolean;
}

const runId = createHash('sha256').update(process.cwd()).digest('hex').slice(0, 10);

/** Under the system temp dir: as root the database runs as the postgres user, who must reach it. */
export const clusterDir = path.join(os.tmpdir(), `ops-hub-test-${runId}`);
export const runtimeDir = path.join(os.tmpdir(), 'ops-hub-test-runtime');
export const stateFile = path.join(clusterDir, 'state.json');

export async function readClusterState(): Promise<ClusterState> {
  try {
    return JSON.parse(await readFile(stateFile, 'utf8')) as ClusterState;
  } catch {
    throw new Error(`no test database cluster (${stateFile}); run the tests through tap, which starts it`);
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
