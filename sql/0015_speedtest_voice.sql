-- Speed-test measurements (a failed run is a row too, so gaps show in history) and retained voice clips.
create table speedtest_results (
  id uuid primary key default gen_random_uuid(),
  job_id text,
  trigger text not null check (trigger in ('manual', 'schedule')),
  status text not null check (status in ('ok', 'failed')),
  measured_at timestamptz not null default now(),
  download_mbps double precision,
  upload_mbps double precision,
  ping_ms double precision,
  jitter_ms double precision,
  packet_loss_pct double precision,
  server_id text,
  server_name text,
  server_location text,
  server_host text,
  isp text,
  result_url text,
  bytes_sent double precision,
  bytes_received double precision,
  format text,
  below_threshold boolean not null default false,
  error text,
  raw_output text not null default ''
);
create index speedtest_results_measured_at on speedtest_results (measured_at desc);

create table voice_clips (
  id uuid primary key default gen_random_uuid(),
  file_name text not null unique,
  content_type text not null,
  size_bytes integer not null check (size_bytes >= 0),
  duration_s double precision,
  language text,
  transcript text not null,
  provider text not null,
  created_at timestamptz not null default now()
);
create index voice_clips_created_at on voice_clips (created_at);
