// A reported backup run on the ops timeline, committed with it: backup.ingested (a partial run as a warning), or
// backup.failed. The subject is the backup target, so a later good run of the same target says it is well again.
import type { Db } from '../../lib/db.ts';
import { recordEvent } from '../timeline/record.ts';
import type { BackupRunRow } from './schema.ts';

export async function recordBackupRun(db: Db, run: BackupRunRow): Promise<void> {
  const failedGuests = run.guests.filter((guest) => guest.status === 'failed').map((guest) => guest.name);
  const failed = run.status === 'failed';
  await recordEvent(db, {
    kind: failed ? 'backup.failed' : 'backup.ingested',
    title: failed
      ? `Backup to ${run.target.name} failed`
      : `Backup to ${run.target.name}: ${run.status === 'ok' ? 'done' : 'partial'} (${run.guests.length} guests)`,
    severity: failed ? 'critical' : run.status === 'partial' ? 'warning' : 'info',
    subject: { type: 'backup', id: run.target.name },
    at: run.finished_at,
    data: {
      run_id: run.id,
      status: run.status,
      target: run.target.name,
      guests: run.guests.length,
      failed_guests: failedGuests,
    },
  });
}
