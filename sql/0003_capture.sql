-- Capture and ingestion: capture records (the idempotency of POST /api/capture and of the bookmark webhook), the
-- record of background jobs (graphile-worker deletes a job once it completes, the jobs API must still show it),
-- and the registry of running worker pools that lets a restarted process recover the jobs of a crashed one.

create table captures (
  id uuid primary key default gen_random_uuid(),
  idempotency_key text not null unique check (length(idempotency_key) between 1 and 200),
  url text not null check (length(url) between 1 and 4096),
  -- Captures are transient bookkeeping: they go with their space (a queued job then fails with a clear error).
  space_id uuid not null references spaces (id) on delete cascade,
  title text check (length(title) <= 500),
  task text not null check (task in ('ingest.url', 'ingest.video')),
  -- graphile-worker's job id; null only inside the transaction that enqueues it.
  job_id bigint,
  via text not null default 'api' check (via in ('api', 'webhook')),
  state text not null default 'queued' check (state in ('queued', 'completed', 'failed')),
  source_doc_id uuid references source_docs (id) on delete set null,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index captures_space_idx on captures (space_id);
create index captures_job_idx on captures (job_id);

-- One row per graphile-worker job (same id), written when the job is enqueued and at every run.
create table job_records (
  id bigint primary key,
  task text not null,
  payload jsonb not null default '{}',
  job_key text,
  state text not null default 'queued' check (state in ('queued', 'running', 'failed', 'completed')),
  attempts integer not null default 0,
  max_attempts integer not null default 25,
  last_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index job_records_list_idx on job_records (created_at desc, id desc);
create index job_records_state_idx on job_records (state, task);
create index job_records_finished_idx on job_records (finished_at) where finished_at is not null;

-- A worker process holds a session advisory lock on its lock_id for as long as it lives; PostgreSQL drops the lock
-- with the connection when the process dies, which is how a sweep tells a crashed pool's locked jobs apart.
create table worker_processes (
  lock_id integer primary key generated always as identity,
  host text not null,
  pid integer not null,
  started_at timestamptz not null default now()
);

-- graphile-worker locks jobs in the name of its pool id; this maps pool ids to the process that runs them.
create table worker_pools (
  pool_id text primary key,
  lock_id integer not null references worker_processes (lock_id) on delete cascade,
  created_at timestamptz not null default now()
);
create index worker_pools_lock_idx on worker_pools (lock_id);
