// The archive is one moment of the database (writes made while it streams are not in it, not even half); an
// archive of a database at an older migration restores and is migrated up; retention keeps the newest archive of
// each of the last N days and M weeks; the owner lists the runs and downloads an archive, nobody else does.
import { readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { openArchive, writeArchive } from '../../../domains/hub-backup/archive.ts';
import { restoreArchive } from '../../../domains/hub-backup/restore.ts';
import { applyRetention, archivesToKeep } from '../../../domains/hub-backup/retention.ts';
import { runBackup } from '../../../domains/hub-backup/run.ts';
import { listMigrations, migrate } from '../../../lib/migrate.ts';
import { createAgent, testApp } from '../../helpers/app.ts';
import { emptyDatabase, tempDir } from './helpers.ts';

t.setTimeout(240_000);

t.test('writes made while the archive streams are not in it, not even half', async (t) => {
  const ta = await testApp(t);
  const dir = await tempDir(t, 'moment');
  const file = path.join(dir, 'a.zip');
  let wrote = false;
  await writeArchive(ta.sql, {
    file,
    passphrase: null,
    clipsDir: path.join(dir, 'clips'),
    afterPart: async (part) => {
      if (part !== 'tables/agents.copy' || wrote) return;
      wrote = true;
      // One transaction writing a table already read (app_settings) and one not read yet (spaces).
      await ta.sql.begin(async (tx) => {
        await tx`insert into app_settings (key, value) values ('during.backup', '1'::jsonb)`;
        await tx`insert into spaces (name) values ('Written during the backup')`;
      });
    },
  });
  t.ok(wrote, 'the write happened while the archive was being written');
  const archive = await openArchive(file, { passphrase: null, workDir: dir });
  t.teardown(() => archive.close());
  const text = async (part: string) => {
    const chunks: Buffer[] = [];
    for await (const chunk of await archive.part(part)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  t.notMatch(await text('tables/app_settings.copy'), /during\.backup/);
  t.notMatch(await text('tables/spaces.copy'), /Written during the backup/);
  const spaces = archive.manifest.tables.find((table) => table.name === 'spaces');
  t.equal(spaces?.rows, 0, 'the row count is of the same moment');
});

t.test('an archive of an older migration restores, then the newer migrations run', async (t) => {
  const old = await emptyDatabase(t);
  await migrate(old.sql, undefined, 25);
  await old.sql`insert into spaces (name) values ('From before')`;
  const dir = await tempDir(t, 'older');
  const file = path.join(dir, 'old.zip');
  const { manifest } = await writeArchive(old.sql, {
    file,
    passphrase: null,
    clipsDir: path.join(dir, 'none'),
  });
  t.equal(manifest.last_migration, 25);
  t.notOk(
    manifest.tables.some((table) => table.name === 'hub_backup_runs'),
    'the archive has the tables of its time only',
  );
  const target = await emptyDatabase(t);
  const lines: string[] = [];
  const result = await restoreArchive(target.sql, file, {
    passphrase: null,
    force: false,
    clipsDir: path.join(dir, 'clips'),
    workDir: dir,
    log: (line) => lines.push(line),
  });
  const newer = (await listMigrations())
    .filter((migration) => migration.version > 25)
    .map((migration) => path.basename(migration.file, '.sql'));
  t.same(result.migrated, newer, 'every migration after the archive’s');
  t.ok(newer.includes('0027_hub_backups'));
  const [space] = await target.sql<{ name: string }[]>`select name from spaces`;
  t.equal(space?.name, 'From before');
  const [{ count }] = await target.sql<
    { count: number }[]
  >`select count(*)::int as count from hub_backup_runs`;
  t.equal(count, 0, 'the newer tables exist');
});

t.test('retention keeps the newest archive of each of the last N days and M weeks', async (t) => {
  const name = (stamp: string) => `ops-hub-backup-${stamp}.zip`;
  // Daily archives from Monday 2 November to Thursday 26 November 2026, two on the last day.
  const names: string[] = [];
  for (let day = 2; day <= 26; day++) names.push(name(`202611${String(day).padStart(2, '0')}T031700Z`));
  names.push(name('20261126T150000Z'));
  const keep = archivesToKeep(names, 3, 3);
  t.same([...keep].sort(), [
    name('20261115T031700Z'), // Sunday: the newest of the week of 9 November
    name('20261122T031700Z'), // the newest of the week of 16 November
    name('20261124T031700Z'),
    name('20261125T031700Z'),
    name('20261126T150000Z'), // the newest of 26 November and of its week
  ]);
  const dir = await tempDir(t, 'retention');
  for (const file of [...names, 'hub.zip', 'notes.txt']) await writeFile(path.join(dir, file), 'x');
  const removed = await applyRetention(dir, 3, 3);
  t.equal(removed.length, names.length - 5);
  t.same((await readdir(dir)).sort(), [...keep, 'hub.zip', 'notes.txt'].sort(), 'other files are left alone');
});

t.test('the owner lists the runs and downloads an archive; a failed run is recorded', async (t) => {
  const ta = await testApp(t);
  const run = await runBackup(ta.sql, ta.config, { trigger: 'manual', log: { warn: () => undefined } });
  t.equal(run.state, 'succeeded');
  const dirMode = (await stat(ta.config.backup.dir)).mode & 0o777;
  t.equal(dirMode, 0o700, 'BACKUP_DIR is the owner’s only');
  const list = await ta.asOwner({ method: 'GET', url: '/api/system/backups' });
  t.equal(list.statusCode, 200);
  const [item] = list.json().items;
  t.match(item, { state: 'succeeded', trigger: 'manual', file_name: run.file_name, available: true });
  t.equal(item.size_bytes, (await stat(path.join(ta.config.backup.dir, run.file_name as string))).size);

  const download = await ta.asOwner({ method: 'GET', url: `/api/system/backups/${run.file_name}` });
  t.equal(download.statusCode, 200);
  t.equal(download.rawPayload.subarray(0, 2).toString(), 'PK');
  t.equal(download.rawPayload.length, item.size_bytes);
  t.equal((await ta.asOwner({ method: 'GET', url: '/api/system/backups/..%2Fsecret.key' })).statusCode, 400);
  const agent = await createAgent(ta, { tier: 'owner' });
  t.equal((await ta.asAgent(agent.token, { method: 'GET', url: '/api/system/backups' })).statusCode, 403);
  t.equal((await ta.anon({ method: 'GET', url: `/api/system/backups/${run.file_name}` })).statusCode, 401);

  // BACKUP_DIR cannot be written: the run fails and is recorded with its error.
  await writeFile(path.join(ta.dataDir, 'not-a-dir'), 'x');
  const config = {
    ...ta.config,
    backup: { ...ta.config.backup, dir: path.join(ta.dataDir, 'not-a-dir', 'b') },
  };
  await t.rejects(runBackup(ta.sql, config, { trigger: 'schedule', log: { warn: () => undefined } }));
  const after = (await ta.asOwner({ method: 'GET', url: '/api/system/backups' })).json().items;
  t.match(after[0], { state: 'failed', trigger: 'schedule', file_name: null, error: /ENOTDIR/ });
});
