// The hub's own backup runs on the ops timeline: a run that succeeds is backup.succeeded, one that cannot write its
// archive is backup.failed (critical), both about the `backup:hub` subject.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { runBackup } from '../../../domains/hub-backup/run.ts';
import { testApp } from '../../helpers/app.ts';

t.test('a run succeeding and a run failing', async (t) => {
  const ta = await testApp(t);
  const log = { warn: () => undefined };
  const run = await runBackup(ta.sql, ta.config, { trigger: 'manual', log });
  await writeFile(path.join(ta.dataDir, 'not-a-dir'), 'x');
  const config = {
    ...ta.config,
    backup: { ...ta.config.backup, dir: path.join(ta.dataDir, 'not-a-dir', 'b') },
  };
  await t.rejects(runBackup(ta.sql, config, { trigger: 'schedule', log }));
  const events = await ta.sql`
    select kind, severity, subject_type, subject_id, data from events where subject_type = 'backup' order by id`;
  t.match(events, [
    { kind: 'backup.succeeded', severity: 'info', subject_id: 'hub', data: { status: 'ok', run_id: run.id } },
    {
      kind: 'backup.failed',
      severity: 'critical',
      subject_id: 'hub',
      data: { status: 'failed', error: /ENOTDIR/ },
    },
  ]);
});
