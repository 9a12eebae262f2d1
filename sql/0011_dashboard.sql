-- The dashboard: one layout per owner (the bearer owner under '' and each access-proxy email under itself), and the
-- backup runs a backup script reports.
create table dashboard_layouts (
  owner_key text primary key,
  layout jsonb not null,
  -- Bumped on every write: the layout's ETag, so two tabs cannot silently overwrite each other.
  revision integer not null default 1,
  updated_at timestamptz not null default now()
);

create table backup_runs (
  id uuid primary key default gen_random_uuid(),
  started_at timestamptz not null,
  finished_at timestamptz not null,
  status text not null check (status in ('ok', 'failed', 'partial')),
  target jsonb not null,
  guests jsonb not null default '[]',
  schedule text,
  created_at timestamptz not null default now(),
  check (finished_at >= started_at)
);
create index backup_runs_finished_idx on backup_runs (finished_at desc);
