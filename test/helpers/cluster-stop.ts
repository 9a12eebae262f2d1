// Run by after.ts, once after the test files: drops the template (external database) or stops the embedded cluster.
import { rm } from 'node:fs/promises';
import postgres from 'postgres';
import { processAlive, stopEmbeddedPostgres } from '../../lib/embedded-postgres.ts';
import {
  clusterDir,
  readClusterState,
  runtimeDir,
  testDatabaseName,
  testDatabasePattern,
} from './cluster.ts';

const state = await readClusterState().catch(() => null);
if (state?.janitorPid && processAlive(state.janitorPid)) process.kill(state.janitorPid, 'SIGTERM');
if (state && !state.embedded) {
  // What the janitor had not dropped yet, then the template.
  const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  const left = await admin<{ datname: string }[]>`
    select datname from pg_database where datname like ${testDatabaseName('%')}`;
  for (const { datname } of left) {
    if (testDatabasePattern.test(datname))
      await admin.unsafe(`drop database if exists ${datname} with (force)`);
  }
  await admin.unsafe(`drop database if exists ${state.template} with (force)`);
  await admin.end();
}
await stopEmbeddedPostgres({ dir: `${clusterDir}/pg`, runtimeDir, log: (message) => console.error(message) });
await rm(clusterDir, { recursive: true, force: true });
