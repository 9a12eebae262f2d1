// Backup runs: one row per reported run.
import type { Db } from '../../plugins/db.ts';
import type { BackupRunRow, CreateBackupRun } from './schema.ts';

const columns = (sql: Db) => sql`id, started_at, finished_at, status, target, guests, schedule, created_at`;

export async function insertBackupRun(sql: Db, run: CreateBackupRun): Promise<BackupRunRow> {
  const [row] = await sql<BackupRunRow[]>`
    insert into backup_runs (started_at, finished_at, status, target, guests, schedule)
    values (${run.started_at}, ${run.finished_at}, ${run.status}, ${sql.json(run.target)},
            ${sql.json(run.guests)}, ${run.schedule ?? null})
    returning ${columns(sql)}`;
  return row;
}

export async function recentBackupRuns(sql: Db, limit: number): Promise<BackupRunRow[]> {
  return sql<BackupRunRow[]>`
    select ${columns(sql)} from backup_runs order by finished_at desc, created_at desc limit ${limit}`;
}

/** When the last successful run finished. */
export async function lastSuccessAt(sql: Db): Promise<Date | null> {
  const [row] = await sql<{ at: Date | null }[]>`
    select max(finished_at) as at from backup_runs where status = 'ok'`;
  return row.at;
}

/** The schedule the most recent run that named one reported. */
export async function currentSchedule(sql: Db): Promise<string | null> {
  const [row] = await sql<{ schedule: string }[]>`
    select schedule from backup_runs where schedule is not null order by finished_at desc limit 1`;
  return row?.schedule ?? null;
}
