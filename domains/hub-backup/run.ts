// One backup run, whoever starts it (the schedule, the owner, `npm run backup`): the archive is written, the run
// recorded (failed ones too, with their error), old archives removed by retention, and a failure raised as
// backup.failed. A missed schedule is judged by `checkStale` (backup.stale).
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config/index.ts';
import type { Alert, DeliveryLog } from '../../lib/notify.ts';
import type { Sql } from '../../plugins/db.ts';
import { raiseAlert } from '../alerts/raise.ts';
import { lastExpectedRun } from '../backups/staleness.ts';
import { readSettingOrStoreDefault } from '../settings/registry.ts';
import { recordEvent } from '../timeline/record.ts';
import { writeArchive } from './archive.ts';
import { applyRetention, archivePath } from './retention.ts';
import type { BackupTrigger, HubBackupRunRow, NewHubBackupRun } from './schema.ts';
import { hubBackupSetting } from './setting.ts';
import { insertRun, installedAt, lastSuccessfulRun } from './store.ts';

export interface RunOptions {
  trigger: BackupTrigger;
  /** Write here instead of BACKUP_DIR (no retention then). */
  out?: string;
  log: DeliveryLog;
}

/** Makes BACKUP_DIR (mode 0700, also when it already existed). */
export async function backupDir(config: Config): Promise<string> {
  await mkdir(config.backup.dir, { recursive: true, mode: 0o700 });
  await chmod(config.backup.dir, 0o700);
  return config.backup.dir;
}

/** The hub's own backups on the timeline, beside the targets of reported runs. */
const hubSubject = { type: 'backup', id: 'hub' };

/** Keeps a run and its event on the timeline, in one transaction. */
async function keepRun(sql: Sql, run: NewHubBackupRun): Promise<HubBackupRunRow> {
  return sql.begin(async (tx) => {
    const inserted = await insertRun(tx, run);
    const ok = run.state === 'succeeded';
    await recordEvent(tx, {
      kind: ok ? 'backup.succeeded' : 'backup.failed',
      title: ok
        ? `Backup of the hub done (${run.size_bytes} bytes)`
        : `Backup of the hub failed: ${run.error}`,
      severity: ok ? 'info' : 'critical',
      subject: hubSubject,
      data: {
        status: ok ? 'ok' : 'failed',
        run_id: inserted.id,
        trigger: run.trigger,
        size_bytes: run.size_bytes,
        error: run.error,
      },
    });
    return inserted;
  }) as Promise<HubBackupRunRow>;
}

export async function runBackup(
  sql: Sql,
  config: Config,
  options: RunOptions,
): Promise<HubBackupRunRow & { removed: string[] }> {
  const startedAt = new Date();
  const encrypted = config.backup.passphrase !== null;
  let file: string | null = null;
  try {
    file = options.out
      ? path.resolve(options.out)
      : archivePath(await backupDir(config), startedAt, encrypted);
    const { size } = await writeArchive(sql, {
      file,
      passphrase: config.backup.passphrase,
      clipsDir: config.voice.clipsDir,
    });
    const finishedAt = new Date();
    const run = await keepRun(sql, {
      started_at: startedAt,
      finished_at: finishedAt,
      state: 'succeeded',
      trigger: options.trigger,
      file_name: options.out ? null : path.basename(file),
      size_bytes: size,
      duration_ms: finishedAt.getTime() - startedAt.getTime(),
      encrypted,
      error: null,
    });
    let removed: string[] = [];
    if (!options.out) {
      const settings = await readSettingOrStoreDefault(sql, hubBackupSetting);
      removed = await applyRetention(config.backup.dir, settings.keep_daily, settings.keep_weekly);
    }
    return { ...run, removed };
  } catch (error) {
    const message = (error as Error).message;
    const finishedAt = new Date();
    await keepRun(sql, {
      started_at: startedAt,
      finished_at: finishedAt,
      state: 'failed',
      trigger: options.trigger,
      file_name: null,
      size_bytes: null,
      duration_ms: finishedAt.getTime() - startedAt.getTime(),
      encrypted,
      error: message,
    }).catch(() => undefined);
    // Recorded where it can be (the database may be why the backup failed); the failure itself is thrown on.
    await raiseAlert(sql, { config }, failedAlert(message, file)).catch(() => undefined);
    throw error;
  }
}

function failedAlert(message: string, file: string | null): Alert {
  return {
    event: 'backup.failed',
    title: 'Backup of the hub failed',
    message: `The backup of the hub failed: ${message}`,
    tags: ['warning', 'backup'],
    priority: 4,
    data: { file },
  };
}

/** How long after a scheduled run a success may still come before the backups are called stale. */
const staleAfterMs = 48 * 3_600_000;

/**
 * Raises backup.stale when the run the schedule expected two days ago (or any since) has not succeeded, and the hub
 * already existed then. Answers whether it did.
 */
export async function checkStale(sql: Sql, config: Config, now: Date): Promise<boolean> {
  const settings = await readSettingOrStoreDefault(sql, hubBackupSetting);
  if (!settings.enabled) return false;
  const expected = lastExpectedRun(settings.schedule, new Date(now.getTime() - staleAfterMs));
  if (!expected) return false;
  const [lastSuccess, installed] = await Promise.all([lastSuccessfulRun(sql), installedAt(sql)]);
  if (!installed || installed > expected) return false;
  if (lastSuccess && lastSuccess >= expected) return false;
  await raiseAlert(
    sql,
    { config },
    {
      event: 'backup.stale',
      title: 'Backups of the hub are missing',
      message: lastSuccess
        ? `No backup of the hub has succeeded since ${lastSuccess.toISOString()} (schedule "${settings.schedule}")`
        : `No backup of the hub has ever succeeded (schedule "${settings.schedule}")`,
      tags: ['warning', 'backup'],
      priority: 4,
      data: { last_success_at: lastSuccess?.toISOString() ?? null, expected_at: expected.toISOString() },
    },
  );
  return true;
}
