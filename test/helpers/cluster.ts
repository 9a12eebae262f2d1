// The test database cluster shared by one `npm test` run: started by before.ts, stopped by after.ts.
// A migrated template database is cloned for every test file, so files run in parallel on fresh data.
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
  /** The process dropping finished databases (database-janitor.ts). */
  janitorPid?: number;
}

/**
 * One cluster per tap run, so runs side by side never share one. tap spawns before.ts, after.ts and every test
 * file itself: its pid (our parent's) names the run; the helpers pass it on to their child as OPS_HUB_TEST_RUN.
 */
export const runId = process.env.OPS_HUB_TEST_RUN ?? String(process.ppid);
export const clusterPrefix = 'ops-hub-test-run-';

/** Under the system temp dir: as root the database runs as the postgres user, who must reach it. */
export const clusterDir = path.join(os.tmpdir(), `${clusterPrefix}${runId}`);
export const runtimeDir = path.join(os.tmpdir(), 'ops-hub-test-runtime');
export const stateFile = path.join(clusterDir, 'state.json');

export async function readClusterState(): Promise<ClusterState> {
  try {
    return JSON.parse(await readFile(stateFile, 'utf8')) as ClusterState;
  } catch {
    throw new Error(`no test database cluster (${stateFile}); run the tests through tap, which starts it`);
  }
}

/** Where a test file announces the database it is finished with, for database-janitor.ts to drop. */
export const databaseDropChannel = 'ops_hub_test_drop_database';

/** A test file's database: the run's id, then random. */
export function testDatabaseName(suffix: string): string {
  return `hub_t_${runId}_${suffix}`;
}
export const testDatabasePattern = /^hub_t_\d+_[0-9a-f]+$/;

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
