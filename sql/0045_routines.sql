-- Routines: an agent's prompt run on a schedule as a headless assistant turn, with the timeline since its last run
-- as its view; each run recorded with its output, usage, state and error.

create table routines (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  agent_id uuid not null references agents (id) on delete cascade,
  schedule text not null check (length(schedule) between 1 and 200),
  prompt text not null check (length(prompt) between 1 and 20000),
  space_id uuid references spaces (id) on delete cascade,
  enabled boolean not null default true,
  -- The end of the period the last run saw: the next run's view starts here.
  last_run_at timestamptz,
  -- The last minute its schedule was found due and a run enqueued: claimed once, so it runs once per minute whichever
  -- processes tick.
  last_due_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table routine_runs (
  id uuid primary key default gen_random_uuid(),
  routine_id uuid not null references routines (id) on delete cascade,
  trigger text not null check (trigger in ('schedule', 'manual')),
  state text not null default 'running' check (state in ('running', 'succeeded', 'failed')),
  period_since timestamptz not null,
  period_until timestamptz not null,
  output text not null default '',
  tools jsonb not null default '[]',
  drafts jsonb not null default '[]',
  usage jsonb,
  error text,
  started_at timestamptz not null default now(),
  finished_at timestamptz
);
create index routine_runs_routine_idx on routine_runs (routine_id, started_at desc);
