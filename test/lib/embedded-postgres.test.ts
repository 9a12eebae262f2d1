// The embedded database's sizing: its shared buffer cache follows the machine's memory, and a server started by
// startEmbeddedPostgres (the run's test cluster, when no DATABASE_URL is given) runs with it. A start in two steps
// (launchEmbeddedPostgres, as the service starts) frees the caller's thread while the slow part runs.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import t from 'tap';
import {
  launchEmbeddedPostgres,
  sharedBuffersMb,
  stopEmbeddedPostgres,
} from '../../lib/embedded-postgres.ts';
import { readClusterState, runtimeDir } from '../helpers/cluster.ts';

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

/** Whether `promise` has settled by the time the promises already settled have run their callbacks. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

t.test(
  'a launched start frees the thread before the database is ready, first start and restart',
  async (t) => {
    // Under the system temp directory: as root the server runs as the postgres user, who must reach it.
    const base = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-launch-'));
    await chmod(base, 0o711);
    const options = {
      dir: path.join(base, 'postgres'),
      runtimeDir,
      appRole: 'hub_launch',
      appDatabase: 'hub_launch',
      log: () => undefined,
    };
    t.teardown(async () => {
      await stopEmbeddedPostgres(options).catch(() => undefined);
      await rm(base, { recursive: true, force: true });
    });

    for (const start of ['first start (initdb)', 'restart']) {
      const launchedAt: number[] = [];
      const starting = launchEmbeddedPostgres({ ...options, onLaunched: () => launchedAt.push(Date.now()) });
      await starting.launched;
      t.ok(launchedAt.length > 0, `${start}: launched once its slow part runs in its own process`);
      t.notOk(await settled(starting.ready), `${start}: the database is not ready yet`);
      const database = await starting.ready;
      const sql = postgres(database.url, { max: 1, onnotice: () => undefined });
      const [row] = await sql<{ user: string }[]>`select current_user as user`;
      await sql.end();
      t.equal(row.user, 'hub_launch', `${start}: then it answers as the service's role`);
      await database.stop();
    }
  },
);

t.test('a start that fails before launching anything still settles launched, and ready fails', async (t) => {
  const base = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-launch-'));
  t.teardown(() => rm(base, { recursive: true, force: true }));
  // A file where the database's directory should be: the start fails at its first step.
  const blocked = path.join(base, 'postgres');
  await writeFile(blocked, 'not a directory');
  const starting = launchEmbeddedPostgres({
    dir: path.join(blocked, 'inside'),
    runtimeDir,
    appRole: 'hub_launch',
    appDatabase: 'hub_launch',
    log: () => undefined,
  });
  await starting.launched;
  await t.rejects(starting.ready, /ENOTDIR|not a directory/);
});
