// Run by after.ts, once after the test files: drops the template (external database) or stops the embedded cluster.
import { rm } from 'node:fs/promises';
import postgres from 'postgres';
import { stopEmbeddedPostgres } from '../../lib/embedded-postgres.ts';
import { clusterDir, readClusterState, runtimeDir } from './cluster.ts';

const state = await readClusterState().catch(() => null);
if (state && !state.embedded) {
  const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`drop database if exists ${state.template} with (force)`);
  await admin.end();
}
await stopEmbeddedPostgres({ dir: `${clusterDir}/pg`, runtimeDir, log: (message) => console.error(message) });
await rm(clusterDir, { recursive: true, force: true });
