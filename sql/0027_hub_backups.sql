-- Backups of the hub itself: one row per run of hub.backup (scheduled, run by the owner, or npm run backup).
create table hub_backup_runs (
  id uuid primary key default gen_random_uuid(),
  started_at timestamptz not null,
  finished_at timestamptz not null,
  state text not null check (state in ('succeeded', 'failed')),
  trigger text not null check (trigger in ('schedule', 'manual', 'command')),
  file_name text,
  size_bytes bigint check (size_bytes >= 0),
  duration_ms integer not null check (duration_ms >= 0),
  encrypted boolean not null default false,
  error text
);
create index hub_backup_runs_started on hub_backup_runs (started_at desc);
