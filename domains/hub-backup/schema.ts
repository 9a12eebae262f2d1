// The hub's own backups: the runs as the API shows them, the task, the setting and the archive's manifest.
import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

export const BackupTrigger = Type.Union([
  Type.Literal('schedule'),
  Type.Literal('manual'),
  Type.Literal('command'),
]);
export type BackupTrigger = Static<typeof BackupTrigger>;

export const HubBackupRun = Type.Object(
  {
    id: Uuid,
    started_at: Timestamp,
    finished_at: Timestamp,
    state: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
    trigger: BackupTrigger,
    file_name: Type.Union([Type.String(), Type.Null()], { description: 'The archive in BACKUP_DIR' }),
    size_bytes: Type.Union([Type.Number(), Type.Null()]),
    duration_ms: Type.Integer(),
    encrypted: Type.Boolean(),
    /** Whether the archive is still in BACKUP_DIR (retention removes old ones). */
    available: Type.Boolean(),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'HubBackupRun' },
);
export type HubBackupRunRow = Omit<Static<typeof HubBackupRun>, 'available'> & {
  started_at: Date;
  finished_at: Date;
};
export type NewHubBackupRun = Omit<HubBackupRunRow, 'id'>;

/** The hub's own backups on the dashboard's backups card: what a glance needs, nothing of where archives are. */
export const HubBackupStatus = Type.Object({
  runs: Type.Array(
    Type.Object({
      started_at: Timestamp,
      finished_at: Timestamp,
      state: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
      size_bytes: Type.Union([Type.Number(), Type.Null()]),
      duration_ms: Type.Integer(),
    }),
    { description: 'The last five runs, newest first' },
  ),
  last_success_at: Type.Union([Timestamp, Type.Null()]),
  schedule: Type.Union([Type.String(), Type.Null()], { description: 'Null when scheduled backups are off' }),
  stale: Type.Boolean({ description: 'No success since the run the schedule expected (plus the grace)' }),
  stale_reason: Type.Union([Type.String(), Type.Null()]),
});
export type HubBackupStatus = Static<typeof HubBackupStatus>;

export const HubBackupList = Type.Object({
  items: Type.Array(Type.Ref('HubBackupRun')),
  last_success_at: Type.Union([Timestamp, Type.Null()]),
  schedule: Type.Union([Type.String(), Type.Null()]),
  directory: Type.String({ description: 'BACKUP_DIR' }),
  encrypted: Type.Boolean({ description: 'Whether BACKUP_PASSPHRASE is set' }),
});

export const ArchiveName = Type.Object({
  name: Type.String({
    pattern: '^ops-hub-backup-[0-9]{8}T[0-9]{6}Z(-[0-9a-f]{4})?\\.(zip|zip\\.enc)$',
    maxLength: 80,
  }),
});

export const hubBackupTask = defineTask({
  name: 'hub.backup',
  payload: Type.Object(
    { trigger: Type.Optional(Type.Union([Type.Literal('schedule'), Type.Literal('manual')])) },
    { additionalProperties: false },
  ),
  description:
    "Writes an archive of the hub's database and voice clips to BACKUP_DIR, then applies retention",
  maxAttempts: 1,
});

export const hubBackupCheckTask = defineTask({
  name: 'hub.backup-check',
  payload: Type.Object({}, { additionalProperties: false }),
  description: 'Raises backup.stale when no backup of the hub succeeded within two days of its schedule',
  maxAttempts: 1,
});

export const HubBackupSettings = Type.Object(
  {
    enabled: Type.Boolean(),
    schedule: Type.String({
      minLength: 9,
      maxLength: 100,
      description: '5-field cron expression (local time)',
    }),
    keep_daily: Type.Integer({
      minimum: 1,
      maximum: 366,
      description: 'Newest archive of each of the last N days',
    }),
    keep_weekly: Type.Integer({
      minimum: 0,
      maximum: 520,
      description: 'Newest archive of each of the last M weeks',
    }),
  },
  { additionalProperties: false },
);
export type HubBackupSettings = Static<typeof HubBackupSettings>;

/** One part of an archive: a table's COPY data or a file, with its SHA-256. */
export interface ManifestPart {
  part: string;
  bytes: number;
  sha256: string;
}

export interface ManifestTable extends ManifestPart {
  name: string;
  columns: string[];
  rows: number;
}

export interface ManifestFile extends ManifestPart {
  /** Where the file is restored to: the voice clips folder. */
  area: 'voice-clips';
  name: string;
}

export interface Manifest {
  format: 'ops-hub-backup';
  format_version: 1;
  hub_version: string;
  created_at: string;
  last_migration: number;
  tables: ManifestTable[];
  sequences: { name: string; last_value: string; is_called: boolean }[];
  files: ManifestFile[];
}
