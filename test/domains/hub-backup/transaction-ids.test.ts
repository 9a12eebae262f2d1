// Transaction ids belong to the cluster that wrote them: the archive leaves them out, and a restore gives the rows
// their column's default, the restoring transaction's id. The incidents follower keeps its place through it: after a
// restore it reads the event it had not read yet, not the one it had, and then the events written after.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { runMigrations } from 'graphile-worker';
import t from 'tap';
import { writeArchive } from '../../../domains/hub-backup/archive.ts';
import { restoreArchive } from '../../../domains/hub-backup/restore.ts';
import { followTimeline } from '../../../domains/incidents/follow.ts';
import { recordEvent } from '../../../domains/timeline/record.ts';
import type { Sql } from '../../../lib/db.ts';
import { testApp } from '../../helpers/app.ts';
import { until } from '../../helpers/process.ts';
import { emptyDatabase, tempDir } from './helpers.ts';

const down = (service: string) => ({
  kind: 'service.down',
  title: `${service} is down`,
  severity: 'critical' as const,
  subject: { type: 'service', id: randomUUID() },
  data: { service },
});

const incidents = (sql: Sql) =>
  sql<
    { title: string; events: { id: string }[] }[]
  >`select title, events from incidents order by opened_at, title`;

/** Runs the follower until `title`'s incident is open (another database's transaction may hold it back a moment). */
const followedTo = (sql: Sql, title: string) =>
  until(`${title} to be followed`, async () => {
    await followTimeline(sql);
    return (await incidents(sql)).some((incident) => incident.title === title) || undefined;
  });

t.test('a restore keeps the follower’s place', async (t) => {
  const ta = await testApp(t);
  await recordEvent(ta.sql, down('Jellyfin'));
  await followedTo(ta.sql, 'Jellyfin is down');
  await recordEvent(ta.sql, down('Grafana'));

  const dir = await tempDir(t, 'xid');
  const file = path.join(dir, 'hub.zip');
  const { manifest } = await writeArchive(ta.sql, {
    file,
    passphrase: null,
    clipsDir: path.join(dir, 'none'),
  });
  const columnsOf = (name: string) => manifest.tables.find((table) => table.name === name)?.columns ?? [];
  t.notOk(columnsOf('events').includes('tx'), 'the events’ transactions are left out');
  t.notOk(columnsOf('incidents_follower').includes('last_event_tx'), 'and the follower’s');
  t.ok(columnsOf('incidents_follower').includes('last_event_id'), 'its last event’s id is kept');

  const target = await emptyDatabase(t);
  await restoreArchive(target.sql, file, {
    passphrase: null,
    force: false,
    clipsDir: path.join(dir, 'clips'),
    workDir: dir,
    log: () => undefined,
  });
  const [ids] = await target.sql<{ transactions: number; same: boolean }[]>`
    select count(distinct tx)::int as transactions,
           bool_and(tx = (select last_event_tx from incidents_follower)) as same
    from events`;
  t.same(ids, { transactions: 1, same: true }, 'the restored rows have the restoring transaction’s id');
  // The job queue's schema, as the service installs it when it starts on the restored database: a follower run that
  // finds events waiting (another database's transaction still open in the shared cluster) queues its next run.
  await runMigrations({ connectionString: target.url });

  await followedTo(target.sql, 'Grafana is down');
  await recordEvent(target.sql, down('Paperless'));
  await followedTo(target.sql, 'Paperless is down');
  const after = await incidents(target.sql);
  t.same(
    after.map((incident) => [incident.title, incident.events.length]),
    [
      ['Jellyfin is down', 1],
      ['Grafana is down', 1],
      ['Paperless is down', 1],
    ],
    'each event read once, the one read before the backup not again',
  );
});
