// The embedded database's sizing: its shared buffer cache follows the machine's memory, and a server started by
// startEmbeddedPostgres (the run's test cluster, when no DATABASE_URL is given) runs with it.
import os from 'node:os';
import postgres from 'postgres';
import t from 'tap';
import { sharedBuffersMb } from '../../lib/embedded-postgres.ts';
import { readClusterState } from '../helpers/cluster.ts';

const GiB = 2 ** 30;

t.test('shared buffers: an eighth of the memory, 128 MB to 2 GB', async (t) => {
  t.equal(sharedBuffersMb(512 * 2 ** 20), 128, 'a small machine keeps the default');
  t.equal(sharedBuffersMb(2 * GiB), 256);
  t.equal(sharedBuffersMb(4 * GiB), 512, 'a 4 GB single-board computer');
  t.equal(sharedBuffersMb(8 * GiB), 1024);
  t.equal(sharedBuffersMb(24 * GiB), 2048, 'a large server is capped');
  t.equal(sharedBuffersMb(7.5 * GiB), 960, 'whole megabytes');
});

t.test('the embedded server runs with them', async (t) => {
  const state = await readClusterState();
  // With DATABASE_URL the run's cluster is someone else's server, configured by its owner.
  if (!state.embedded) return;
  const admin = postgres(state.adminUrl, { max: 1, onnotice: () => undefined });
  t.teardown(() => admin.end());
  const [row] = await admin<{ mb: number }[]>`
    select setting::bigint * (select setting::bigint from pg_settings where name = 'block_size') / 2 ^ 20 as mb
    from pg_settings where name = 'shared_buffers'`;
  t.equal(Number(row.mb), sharedBuffersMb(os.totalmem()));
});
