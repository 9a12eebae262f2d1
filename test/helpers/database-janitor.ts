// Started by cluster-start.ts for one test run, in the background: drops the test files' databases as they are
// finished with. A file's teardown only announces its database (a NOTIFY, instantly) instead of waiting for the drop,
// which forces a checkpoint and took seconds each, several hundred times a run, on the files' own clock.
// cluster-stop.ts ends it; what it had not dropped yet goes with the cluster (or, on DATABASE_URL, is dropped there).
import postgres from 'postgres';
import { processAlive } from '../../lib/embedded-postgres.ts';
import { databaseDropChannel, runId, testDatabasePattern } from './cluster.ts';

const admin = postgres(process.env.OPS_HUB_TEST_ADMIN_URL ?? '', { max: 1, onnotice: () => undefined });
const queue: string[] = [];
let draining = false;

async function drain(): Promise<void> {
  if (draining) return;
  draining = true;
  for (let name = queue.shift(); name; name = queue.shift()) {
    // Only names the helpers make: the payload is spliced into SQL.
    if (!testDatabasePattern.test(name)) continue;
    await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => undefined);
  }
  draining = false;
}

await admin.listen(databaseDropChannel, (name) => {
  queue.push(name);
  void drain();
});
process.stdout.write('ready\n');
// A run stopped before after.ts (Ctrl-C) leaves no janitor behind.
setInterval(() => {
  if (!processAlive(Number(runId))) process.exit(0);
}, 2000);
