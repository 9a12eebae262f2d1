// A backup run as a backup script reports it (vzdump hook at job-end), and the card's summary.
import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../../lib/schemas.ts';
import { HubBackupStatus } from '../hub-backup/schema.ts';

const Bytes = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const BackupTarget = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    free_bytes: Bytes,
    total_bytes: Bytes,
  },
  { additionalProperties: false },
);

export const BackupGuest = Type.Object(
  {
    vmid: Type.Integer({ minimum: 1, maximum: 999_999_999 }),
    name: Type.String({ maxLength: 200 }),
    size_bytes: Bytes,
    status: Type.Union([Type.Literal('ok'), Type.Literal('failed')]),
    duration_s: Type.Number({ minimum: 0, maximum: 31_536_000 }),
  },
  { additionalProperties: false },
);

export const CreateBackupRun = Type.Object(
  {
    started_at: Type.String({ format: 'date-time' }),
    finished_at: Type.String({ format: 'date-time' }),
    status: Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('partial')]),
    target: BackupTarget,
    guests: Type.Array(BackupGuest, { maxItems: 10_000 }),
    schedule: Type.Optional(
      Type.String({
        maxLength: 100,
        description: "The job's schedule, a 5-field cron expression (local time)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateBackupRun = Static<typeof CreateBackupRun>;

export const BackupRun = Type.Object(
  {
    id: Uuid,
    started_at: Timestamp,
    finished_at: Timestamp,
    status: Type.String(),
    target: BackupTarget,
    guests: Type.Array(BackupGuest),
    schedule: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
  },
  { $id: 'BackupRun' },
);
export type BackupRunRow = Static<typeof BackupRun> & {
  started_at: Date;
  finished_at: Date;
  created_at: Date;
};

export const BackupSummary = Type.Object({
  last_run: Type.Union([Type.Ref('BackupRun'), Type.Null()]),
  last_success_at: Type.Union([Timestamp, Type.Null()]),
  guests: Type.Array(BackupGuest),
  target: Type.Union([BackupTarget, Type.Null()]),
  schedule: Type.Union([Type.String(), Type.Null()]),
  stale: Type.Boolean(),
  stale_reason: Type.Union([Type.String(), Type.Null()]),
  expected_since: Type.Union([Timestamp, Type.Null()]),
  runs: Type.Array(Type.Ref('BackupRun')),
  hub: HubBackupStatus,
});
